using System.Text.RegularExpressions;
using IpcBench.Transports;
using YamlDotNet.RepresentationModel;
using static IpcBench.Tests.YamlNodes;

namespace IpcBench.Tests;

/// <summary>
/// The Windows files nothing here can run: the windows-latest CI job (.github/workflows/windows.yml) and the Windows
/// containers (docker/compose.windows.yaml, docker/Dockerfile.windows). Checked by parsing, as <see cref="DockerFilesTests"/>
/// checks the Linux ones, and against the code: every transport they name is one, every variable the job sets is read.
/// </summary>
public class WindowsFilesTests
{
    private static readonly string Root = DockerFilesTests.RepositoryRoot();

    private const string Workflow = ".github/workflows/windows.yml";
    private const string Compose = "docker/compose.windows.yaml";
    private const string Dockerfile = "docker/Dockerfile.windows";

    /// <summary>The rows Windows has a code path of its own for: named pipes, mmf's file-backed map, wcf on the .NET Framework.</summary>
    private static readonly string[] WindowsRows = ["pipe", "grpc-pipe", "mmf", "jsonrpc", "wcf"];

    // ---- the CI job

    [Fact]
    public void The_windows_job_runs_on_windows_latest_with_a_timeout_and_every_step_fails_it_on_error()
    {
        var workflow = Load(Workflow);
        Assert.Equal("read", Text(Get(workflow, "permissions", "contents")));
        var job = WindowsJob();
        Assert.InRange(int.Parse(Text(Get(job, "timeout-minutes")), System.Globalization.CultureInfo.InvariantCulture), 1, 360);
        foreach (var step in Steps(job))
        {
            bool uses = Get(step, "uses") is not null, run = Get(step, "run") is not null;
            Assert.True(uses ^ run, $"step '{Name(step)}' must either use an action or run a command");
            if (run)
            {
                // GitHub runs bash as 'bash -eo pipefail': a failing command fails the step.
                Assert.Equal("bash", Text(Get(step, "shell") ?? Get(job, "defaults", "run", "shell")));
            }
        }
        var actions = Steps(job).Select(s => Text(Get(s, "uses"))).Where(u => u.Length > 0).ToList();
        Assert.Contains("actions/checkout@v4", actions);
        Assert.Equal("10.0.x", Text(Get(Steps(job).Single(s => Text(Get(s, "uses")) == "actions/setup-dotnet@v4"), "with", "dotnet-version")));
        // What is kept is kept whatever failed.
        Assert.All(Steps(job).Where(s => Text(Get(s, "uses")) == "actions/upload-artifact@v4"), s => Assert.Equal("always()", Text(Get(s, "if"))));
    }

    [Fact]
    public void The_windows_job_builds_the_wcf_host_and_runs_the_unit_and_conformance_tests_into_an_artifact()
    {
        var job = WindowsJob();
        string build = Text(Get(Running(job, "dotnet build"), "run"));
        Assert.Contains("dotnet build -c Release IpcBench.sln", build);
        // The solution build is what builds the net48 host; the job checks it is where the wcf transport looks for it.
        Assert.Contains(@"transports\IpcBench.Transports.Wcf.Host\IpcBench.Transports.Wcf.Host.csproj", File.ReadAllText(Path.Combine(Root, "IpcBench.sln")));
        Assert.Contains("wcf-host/IpcBench.WcfHost.exe", build);

        var kept = UploadedPaths(job);
        foreach (string project in new[] { "tests/IpcBench.Tests", "tests/IpcBench.Conformance" })
        {
            string run = Text(Get(Steps(job).Single(s => Text(Get(s, "run")).Contains("dotnet test", StringComparison.Ordinal)
                && Text(Get(s, "run")).Contains(project + " ", StringComparison.Ordinal)), "run"));
            Assert.True(Directory.Exists(Path.Combine(Root, project)), $"{project} is not a folder of the repository");
            Assert.Contains("-c Release --no-build", run);
            Assert.Contains("--blame-hang-timeout 5m", run);
            Assert.Contains("--logger \"trx;", run);
            Assert.Contains(Regex.Match(run, @"--results-directory (\S+)").Groups[1].Value, kept);
        }
    }

    [Fact]
    public void The_windows_job_runs_the_suite_on_the_windows_rows_and_keeps_its_report()
    {
        var job = WindowsJob();
        var suite = Running(job, "dotnet run -c Release -- --filter '*RoundTrip*'");
        Assert.Equal("benchmarks/IpcBench.Benchmarks", Text(Get(suite, "working-directory")));
        Assert.True(Directory.Exists(Path.Combine(Root, "benchmarks", "IpcBench.Benchmarks")));
        var rows = Entries(Text(Get(suite, "env", "IPCBENCH_TRANSPORTS"))).ToList();
        Assert.Empty(WindowsRows.Except(rows));
        Assert.NotEmpty(Text(Get(suite, "env", "IPCBENCH_SIZES")));
        // The run folder goes where the job uploads it from, and BenchmarkDotNet's report into the job's summary.
        string results = Text(Get(suite, "env", "IPCBENCH_RESULTS"));
        Assert.Contains(results[(results.LastIndexOf('/') + 1)..], UploadedPaths(job));
        Assert.Contains(Steps(job), s => Text(Get(s, "if")) == "always()"
            && Text(Get(s, "run")).Contains("-report-github.md", StringComparison.Ordinal)
            && Text(Get(s, "run")).Contains("$GITHUB_STEP_SUMMARY", StringComparison.Ordinal));
    }

    [Fact]
    public void The_windows_job_pings_wcf_with_concurrent_clients_through_options_ping_has()
    {
        string ping = Text(Get(Running(WindowsJob(), "ping --transport wcf"), "run"));
        int Count(string option) => Regex.Match(ping, $@"{option} (\d+)") is { Success: true } m ? int.Parse(m.Groups[1].Value, System.Globalization.CultureInfo.InvariantCulture) : 1;
        Assert.True(Count("--clients") * Count("--client-processes") > 1, "the wcf ping must run several clients at once");
        var options = Cli.IpcbenchCommand.Create().Subcommands.Single(c => c.Name == "ping").Options.Select(o => o.Name).ToHashSet();
        foreach (Match option in Regex.Matches(ping[ping.IndexOf(" ping ", StringComparison.Ordinal)..], @"(?<= )--[a-z-]+"))
        {
            Assert.True(options.Contains(option.Value), $"ping has no option {option.Value}");
        }
    }

    [Fact]
    public void Every_transport_and_suite_variable_the_windows_job_names_is_a_real_one()
    {
        var job = WindowsJob();
        var named = new List<string>();
        var variables = new List<string>();
        foreach (var env in new[] { Get(Load(Workflow), "env"), Get(job, "env") }.Concat(Steps(job).Select(s => Get(s, "env"))).OfType<YamlMappingNode>())
        {
            foreach (var (key, value) in env.Children.Select(c => (Text(c.Key), Text(c.Value))).Where(c => c.Item1.StartsWith("IPCBENCH_", StringComparison.Ordinal)))
            {
                variables.Add(key);
                if (key == "IPCBENCH_TRANSPORTS")
                {
                    named.AddRange(Entries(value));
                }
            }
        }
        named.AddRange(Steps(job).SelectMany(s => Regex.Matches(Text(Get(s, "run")), @"--transport ([\w-]+)").Select(m => m.Groups[1].Value)));
        Assert.NotEmpty(named);
        Assert.All(named, name => Assert.Contains(name, TransportRegistry.Names));
        // No invented settings: each variable is one the code reads (SuiteSettings, RunFolder ...).
        string code = string.Concat(new[] { "src", "benchmarks" }
            .SelectMany(d => Directory.EnumerateFiles(Path.Combine(Root, d), "*.cs", SearchOption.AllDirectories))
            .Where(f => !Regex.IsMatch(f, @"[\\/](bin|obj)[\\/]"))
            .Select(File.ReadAllText));
        Assert.NotEmpty(variables);
        Assert.All(variables, v => Assert.Contains($"\"{v}\"", code));
    }

    // ---- the Windows containers

    [Fact]
    public void The_windows_pairs_compare_process_and_hyperv_isolation()
    {
        var compose = Load(Compose);
        var services = Services(compose);
        foreach (string isolation in new[] { "process", "hyperv" })
        {
            foreach (string role in new[] { "server", "client" })
            {
                Assert.Equal(isolation, Text(Get(services, $"{isolation}-{role}", "isolation")));
                Assert.Equal(isolation, Text(Get(services, $"wcf-{isolation}-{role}", "isolation")));
                // The hyperv pair is the process pair renamed, nothing else: isolation is all that differs.
                Assert.Equal(Flatten(Get(services, $"process-{role}")).Replace("process", "hyperv", StringComparison.Ordinal), Flatten(Get(services, $"hyperv-{role}")));
                Assert.Equal(Flatten(Get(services, $"wcf-process-{role}")).Replace("process", "hyperv", StringComparison.Ordinal), Flatten(Get(services, $"wcf-hyperv-{role}")));
            }
        }
        Assert.Contains(@"\\.\pipe\ipcbench:\\.\pipe\ipcbench", Items(Get(services, "pipe-server", "volumes")));
        Assert.Equal("nat", Text(Get(compose, "networks", "pair", "driver")));
        Assert.Contains("mmf does not cross", File.ReadAllText(Path.Combine(Root, Compose)));
    }

    [Fact]
    public void Each_windows_service_runs_on_the_image_its_role_needs()
    {
        // Which target each image tag is built from, as the header's build commands say (and the Dockerfile's).
        string composeText = File.ReadAllText(Path.Combine(Root, Compose));
        var targets = Regex.Matches(composeText, @"docker build -f docker/Dockerfile\.windows --target (\S+) -t (\S+) \.")
            .ToDictionary(m => m.Groups[2].Value, m => m.Groups[1].Value);
        Assert.Equal(["framework", "nanoserver"], targets.Values.Order());
        string dockerfileText = File.ReadAllText(Path.Combine(Root, Dockerfile));
        Assert.All(targets, t => Assert.Contains($"docker build -f docker/Dockerfile.windows --target {t.Value} -t {t.Key} .", dockerfileText));

        var wcfServers = new List<string>();
        foreach (var service in Services(Load(Compose)).Children.Values)
        {
            string target = targets.GetValueOrDefault(Default(Text(Get(service, "image"))), "(not built by the header's commands)");
            var command = Items(Get(service, "command")).ToList();
            string transport = Default(command[command.IndexOf("--transport") + 1]);
            Assert.Contains(transport, TransportRegistry.Names);
            if (command.FirstOrDefault() != "serve")
            {
                // Clients: the same .NET 10 ping on Nano Server in every pair, wcf's too.
                Assert.Equal("ping", Items(Get(service, "entrypoint")).ElementAtOrDefault(1));
                Assert.Equal("nanoserver", target);
            }
            else if (transport == "wcf")
            {
                // The net48 ServiceHost needs the .NET Framework, which only Server Core's image has.
                Assert.Equal("framework", target);
                wcfServers.Add(Text(Get(service, "isolation")));
            }
            else
            {
                Assert.Equal("nanoserver", target);
                Assert.NotEqual("zmq-libzmq", transport); // no libzmq.dll in either image
            }
        }
        Assert.Equal(["hyperv", "process"], wcfServers.Order());
    }

    [Fact]
    public void The_windows_dockerfile_builds_the_wcf_host_and_a_runtime_image_for_each_need()
    {
        string[] lines = File.ReadAllLines(Path.Combine(Root, Dockerfile));
        Assert.Equal("# escape=`", lines[0]); // the RUN check below writes Windows paths with backslashes
        var args = lines.Where(l => l.StartsWith("ARG ", StringComparison.Ordinal))
            .Select(l => l["ARG ".Length..].Split('=', 2)).ToDictionary(a => a[0], a => a[1]);
        Assert.Equal("mcr.microsoft.com/dotnet/sdk:10.0-nanoserver-ltsc2022", args["SDK_IMAGE"]);
        Assert.Equal("mcr.microsoft.com/windows/nanoserver:ltsc2022", args["RUNTIME_IMAGE"]);
        // The host is net48: the framework image must carry the .NET Framework 4.8.
        Assert.Contains("<TargetFramework>net48</TargetFramework>",
            File.ReadAllText(Path.Combine(Root, "transports", "IpcBench.Transports.Wcf.Host", "IpcBench.Transports.Wcf.Host.csproj")));
        Assert.Equal("mcr.microsoft.com/dotnet/framework/runtime:4.8-windowsservercore-ltsc2022", args["FRAMEWORK_IMAGE"]);
        // Process isolation needs the host's Windows build: one build for all three.
        Assert.Single(args.Values.Select(image => Regex.Match(image, @"ltsc\d{4}").Value).Distinct());

        var stages = lines.Select(l => Regex.Match(l, @"^FROM \$\{(\w+)\} AS (\w+)$")).Where(m => m.Success)
            .Select(m => (Base: m.Groups[1].Value, Name: m.Groups[2].Value)).ToList();
        Assert.Equal([("SDK_IMAGE", "build"), ("RUNTIME_IMAGE", "nanoserver"), ("FRAMEWORK_IMAGE", "framework")], stages);
        // Both runtime images are the build's publish, started the same way.
        Assert.Equal(2, lines.Count(l => l == "COPY --from=build C:/app C:/app"));
        Assert.Equal(2, lines.Count(l => l == @"ENTRYPOINT [""C:\\app\\ipcbench.exe""]"));
        // The build stage publishes the CLI, which builds the net48 host, and fails if the host is not in the publish.
        int firstRuntime = Array.FindIndex(lines, l => l.StartsWith("FROM ${RUNTIME_IMAGE}", StringComparison.Ordinal));
        var build = lines[..firstRuntime];
        Assert.Contains(build, l => l.StartsWith("RUN dotnet publish src/IpcBench.Cli ", StringComparison.Ordinal));
        Assert.Contains(build, l => l.StartsWith(@"RUN if not exist C:\app\wcf-host\IpcBench.WcfHost.exe ", StringComparison.Ordinal));
    }

    // ---- reading YAML, as DockerFilesTests does

    private static YamlMappingNode Load(string relativePath) => YamlNodes.Load(Path.Combine(Root, relativePath));

    private static YamlMappingNode Services(YamlMappingNode compose) => (YamlMappingNode)compose["services"];

    private static YamlMappingNode WindowsJob() =>
        (YamlMappingNode)((YamlMappingNode)Load(Workflow)["jobs"]).Children.Values.Single(j => Text(Get(j, "runs-on")) == "windows-latest");

    private static List<YamlMappingNode> Steps(YamlMappingNode job) => ((YamlSequenceNode)job["steps"]).Children.Cast<YamlMappingNode>().ToList();

    /// <summary>The one step whose command contains <paramref name="command"/>.</summary>
    private static YamlMappingNode Running(YamlMappingNode job, string command) =>
        Steps(job).Single(s => Text(Get(s, "run")).Contains(command, StringComparison.Ordinal));

    private static List<string> UploadedPaths(YamlMappingNode job) =>
        Steps(job).Where(s => Text(Get(s, "uses")) == "actions/upload-artifact@v4").Select(s => Text(Get(s, "with", "path"))).ToList();

    private static string Name(YamlMappingNode step) => Text(Get(step, "name")) is { Length: > 0 } name ? name : Text(Get(step, "uses"));

    /// <summary>The transports of an IPCBENCH_TRANSPORTS list, without their options ("mmf?wait=spin" is mmf).</summary>
    private static IEnumerable<string> Entries(string list) =>
        list.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries).Select(e => e.Split('?', 2)[0]);

    /// <summary>What compose makes of <c>${VARIABLE:-default}</c> when the variable is not set; any other text as it is.</summary>
    private static string Default(string value) => Regex.Match(value, @"^\$\{\w+:-([^}]*)\}$") is { Success: true } m ? m.Groups[1].Value : value;

    private static IEnumerable<string> Keys(YamlMappingNode map) =>
        map.Children.Keys.Select(Text).Where(k => k != "<<")
            .Union(map.Children.TryGetValue("<<", out var merged) && merged is YamlMappingNode parent ? Keys(parent) : []);

    /// <summary>A node as one line of text, merge keys resolved (the node's own key wins) and keys sorted: two services compare by it.</summary>
    private static string Flatten(YamlNode? node) => node switch
    {
        YamlMappingNode map => "{" + string.Join(", ", Keys(map).Order(StringComparer.Ordinal).Select(k => $"{k}: {Flatten(Member(map, k))}")) + "}",
        YamlSequenceNode seq => "[" + string.Join(", ", seq.Children.Select(Flatten)) + "]",
        _ => Text(node),
    };
}
