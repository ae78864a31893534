using System.Globalization;
using System.Text;
using IpcBench.Reporting.Collecting;

namespace IpcBench.Reporting.Writers;

/// <summary>env.md: the machine and the options of a run, as a list a person reads.</summary>
public static class EnvironmentMarkdown
{
    public const string FileName = "env.md";

    public static string Render(RunResults run)
    {
        var env = run.Environment;
        var md = new StringBuilder();
        md.Append($"# Environment of IpcBench run {run.Id}\n\n");
        md.Append($"- started: {run.StartedAt.UtcDateTime.ToString("yyyy-MM-dd HH:mm:ss", CultureInfo.InvariantCulture)} UTC\n");
        md.Append($"- commit: {run.GitCommit ?? "unknown (not a git work tree, or no git)"}\n");
        md.Append($"- command line: `{run.CommandLine.Replace("`", "'", StringComparison.Ordinal)}`\n");
        md.Append("\n## Machine\n\n");
        md.Append($"- OS: {env.Os}\n");
        md.Append($"- kernel: {env.Kernel ?? "unknown"}\n");
        md.Append($"- CPU: {env.CpuModel ?? "unknown"}\n");
        md.Append($"- logical CPUs: {env.LogicalCpus}\n");
        md.Append($"- runtime: {env.Runtime}\n");
        md.Append($"- clocksource: {env.Clocksource ?? "unknown"}\n");
        md.Append($"- cpu limits: {env.CpuLimits ?? "unknown"}\n");
        md.Append($"- isolation: {env.Isolation}{(env.IsolationEvidence is { } why ? $" ({why})" : "")}\n");
        md.Append($"- placement: {env.Placement}\n");
        md.Append("\n## Options\n\n");
        if (env.Options.Count == 0)
        {
            md.Append("None recorded.\n");
        }
        foreach (var (name, value) in env.Options.OrderBy(o => o.Key, StringComparer.Ordinal))
        {
            md.Append($"- {name}: {(value.Length == 0 ? "(empty)" : value)}\n");
        }
        return md.ToString();
    }

    public static void Write(string folder, RunResults run) =>
        File.WriteAllText(Path.Combine(folder, FileName), Render(run));
}
