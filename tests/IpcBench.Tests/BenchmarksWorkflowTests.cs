using System.Text.RegularExpressions;
using IpcBench.Cli;
using YamlDotNet.RepresentationModel;
using static IpcBench.Tests.YamlNodes;

namespace IpcBench.Tests;

/// <summary>
/// The benchmarks workflow (.github/workflows/benchmarks.yml), which nothing here can run, checked by parsing: the gate
/// reads only; one job may write, the one that keeps each push's gate in the history branch, and only after a push.
/// </summary>
public class BenchmarksWorkflowTests
{
    private static readonly string Root = DockerFilesTests.RepositoryRoot();

    private static readonly YamlMappingNode Workflow = Load(Path.Combine(Root, ".github/workflows/benchmarks.yml"));

    [Fact]
    public void Only_the_history_job_may_write_and_only_after_a_push_one_at_a_time()
    {
        Assert.Equal("read", Text(Get(Workflow, "permissions", "contents")));
        var writers = ((YamlMappingNode)Workflow["jobs"]).Children
            .Where(job => Text(Get(job.Value, "permissions", "contents")) != "" && Text(Get(job.Value, "permissions", "contents")) != "read")
            .Select(job => Text(job.Key)).ToList();
        Assert.Equal(["history"], writers);
        var history = Get(Workflow, "jobs", "history");
        Assert.Contains("github.event_name == 'push'", Text(Get(history, "if")), StringComparison.Ordinal);
        Assert.Equal("false", Text(Get(history, "concurrency", "cancel-in-progress")));
        Assert.NotEqual("", Text(Get(history, "concurrency", "group")));
        Assert.Equal("ab-gate", Text(Get(history, "needs")));
    }

    [Fact]
    public void The_history_job_keeps_the_gate_the_gate_job_uploads_and_renders_it_with_verbs_ipcbench_has()
    {
        var gateSteps = Steps("ab-gate");
        var historySteps = Steps("history");
        string uploaded = Text(Get(gateSteps.Single(s => Text(Get(s, "uses")).StartsWith("actions/upload-artifact", StringComparison.Ordinal)), "with", "name"));
        string downloaded = Text(Get(historySteps.Single(s => Text(Get(s, "uses")).StartsWith("actions/download-artifact", StringComparison.Ordinal)), "with", "name"));
        Assert.Equal(uploaded, downloaded);
        string commands = string.Join("\n", historySteps.Select(s => Text(Get(s, "run"))));
        // ipcbench keep makes what the history keeps of the downloaded gate; keep-gate.sh commits that, after it
        var keep = Regex.Match(commands, @"-- keep ab-runs --into (\S+)\n");
        Assert.True(keep.Success, commands);
        Assert.Contains($"benchmarks/keep-gate.sh {keep.Groups[1].Value} ", commands[keep.Index..], StringComparison.Ordinal);
        Assert.True(File.Exists(Path.Combine(Root, "benchmarks/keep-gate.sh")));
        Assert.Contains("-- history ", commands, StringComparison.Ordinal);
        Assert.All(new[] { "keep", "history" }, verb => Assert.Contains(IpcbenchCommand.Create().Subcommands, c => c.Name == verb));
    }

    private static List<YamlMappingNode> Steps(string job) =>
        ((YamlSequenceNode)Get(Workflow, "jobs", job, "steps")!).Children.Cast<YamlMappingNode>().ToList();
}
