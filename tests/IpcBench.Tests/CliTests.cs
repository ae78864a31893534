using System.Diagnostics;
using System.Text.Json;
using System.Text.RegularExpressions;
using IpcBench.Harness.Hosting;
using IpcBench.Harness.Measurement;
using IpcBench.Conformance;
using IpcBench.Kit.Processes;

namespace IpcBench.Tests;

/// <summary>The ipcbench executable, run as a separate process the way people and scripts run it.</summary>
public class CliTests
{
    /// <summary>
    /// How long one command may run before a test gives up on it: a safety net, not a figure. The gate and plan tests run
    /// a dozen launches or more, each waiting until its JIT is done, which beside the conformance suite takes seconds.
    /// </summary>
    private static readonly TimeSpan RunTimeout = TimeSpan.FromSeconds(180);

    private static Task<(int Exit, string Stdout, string Stderr)> RunAsync(params string[] args) => RunWithAsync(null, args);

    /// <summary>
    /// Runs ipcbench with <paramref name="environment"/> added. Unless that names IPCBENCH_RESULTS,
    /// run folders (ping writes one) go to a temporary directory removed afterwards, never to the
    /// repository's results/.
    /// </summary>
    internal static async Task<(int Exit, string Stdout, string Stderr)> RunWithAsync(IReadOnlyDictionary<string, string>? environment, params string[] args)
    {
        var info = ServerCommand.Resolve().StartInfo();
        foreach (string arg in args)
        {
            info.ArgumentList.Add(arg);
        }
        info.RedirectStandardOutput = true;
        info.RedirectStandardError = true;
        info.RedirectStandardInput = true;
        string? scratchResults = environment?.ContainsKey("IPCBENCH_RESULTS") == true
            ? null
            : Path.Combine(Path.GetTempPath(), $"ipcbench-test-results-{Guid.NewGuid():N}");
        if (scratchResults is not null)
        {
            info.Environment["IPCBENCH_RESULTS"] = scratchResults;
        }
        foreach (var (name, value) in environment ?? new Dictionary<string, string>())
        {
            info.Environment[name] = value;
        }
        try
        {
            using var process = Process.Start(info)!;
            var stdout = process.StandardOutput.ReadToEndAsync();
            var stderr = process.StandardError.ReadToEndAsync();
            using var cts = new CancellationTokenSource(RunTimeout);
            try
            {
                await process.WaitForExitAsync(cts.Token);
            }
            catch (OperationCanceledException)
            {
                ProcessTree.Kill(process);
                throw new TimeoutException($"ipcbench {string.Join(' ', args)} did not finish within {RunTimeout}");
            }
            return (process.ExitCode, await stdout, await stderr);
        }
        finally
        {
            if (scratchResults is not null && Directory.Exists(scratchResults))
            {
                Directory.Delete(scratchResults, recursive: true);
            }
        }
    }

    [Fact]
    public async Task List_shows_every_transport_and_whether_it_runs()
    {
        var (exit, stdout, _) = await RunAsync("list");
        Assert.Equal(0, exit);
        foreach (string name in IpcBench.Transports.TransportRegistry.Names)
        {
            Assert.Matches($@"(?m)^{name}\s+(baseline|sockets|local|messaging|rpc)\s+(yes|no)\s", stdout);
        }
        Assert.Matches(@"(?m)^inproc-copy\s+baseline\s+yes\s+\S*in-process", stdout);
    }

    [Theory]
    [InlineData("remoting", "never ported to .NET Core", "grpc")]
    [InlineData("msmq", "System.Messaging was never ported", "amqp")]
    [InlineData("wm-copydata", "a window and a message loop", "pipe, mmf")]
    [InlineData("lrpc", "Windows only", "grpc-uds")]
    public async Task The_older_dotnet_ipc_is_listed_as_retired_and_never_measured(string name, string why, string instead)
    {
        var (exit, stdout, _) = await RunAsync("list");
        Assert.Equal(0, exit);
        Assert.Matches($@"(?m)^{name}\s+\w+\s+retired\s.*not on \.NET 5 and later: .*{Regex.Escape(why)}.*; instead: .*{Regex.Escape(instead)}", stdout);
        var (pinged, _, stderr) = await RunAsync("ping", "--transport", name);
        Assert.Equal(3, pinged);
        Assert.Contains("not on .NET 5 and later", stderr);
    }

    [Fact]
    public async Task Ping_measures_the_in_process_floor_with_no_server_process()
    {
        var (exit, stdout, stderr) = await RunAsync("ping", "--transport", "inproc-copy", "--count", "2000", "--warmup", "0", "--no-results");
        Assert.True(exit == 0, stderr);
        Assert.Matches(@"inproc-copy", stdout);
        Assert.DoesNotContain("[server]", stderr);
        var (served, _, refusal) = await RunAsync("serve", "--transport", "inproc");
        Assert.Equal(3, served);
        Assert.Contains("no server process", refusal);
        var (remote, _, why) = await RunAsync("ping", "--transport", "inproc", "--server", "inproc://elsewhere");
        Assert.Equal(3, remote);
        Assert.Contains("not IPC", why);
    }

    /// <summary>Cross-core when asked, and by default for a spinning transport (on one CPU, each side would wait out the other's time slice).</summary>
    [Theory]
    [InlineData("--transport", "tcp", "--placement", "cross-core")]
    [InlineData("--transport", "mmf", "--wait", "spin")]
    public async Task Ping_runs_cross_core_where_there_are_two_cpus(params string[] args)
    {
        Assert.SkipWhen(IpcBench.Harness.Hosting.CpuAffinity.UsableCpus().Count < 2, "needs two CPUs this process may use, one for each side");
        var (exit, stdout, stderr) = await RunAsync(["ping", .. args, "--count", "200", "--warmup", "0", "--no-results"]);
        Assert.True(exit == 0, stderr);
        Assert.Matches(@"placement cross-core \(client cpu (\d+), server cpu (?!\1)\d+\)", stdout);
    }

    [Fact]
    public async Task Ping_measures_and_writes_its_results_as_the_run_folder_holds_them()
    {
        string json = Path.Combine(Path.GetTempPath(), $"ipcbench-test-{Guid.NewGuid():N}.json");
        string results = Path.Combine(Path.GetTempPath(), $"ipcbench-test-results-{Guid.NewGuid():N}");
        try
        {
            var (exit, stdout, stderr) = await RunWithAsync(new Dictionary<string, string> { ["IPCBENCH_RESULTS"] = results },
                "ping", "--transport", "tcp", "--size", "1KB", "--count", "500", "--warmup", "50", "--json", json); // same-core: the default
            Assert.True(exit == 0, stderr);
            Assert.Contains("p99.9", stdout);
            Assert.Contains("placement same-core", stdout);

            // The run folder: named on stderr, one case in its results.json.
            string folder = Assert.Single(Directory.GetDirectories(results));
            Assert.Matches(@"^\d{8}-\d{6}-ping$", Path.GetFileName(folder));
            Assert.Contains($"results: {folder}", stderr);
            var run = IpcBench.Reporting.ResultsFile.Read(folder);
            // --json is the same record, byte for byte: one schema for scripts and reports.
            Assert.Equal(await File.ReadAllTextAsync(Path.Combine(folder, "results.json"), TestContext.Current.CancellationToken), await File.ReadAllTextAsync(json, TestContext.Current.CancellationToken));
            var single = Assert.Single(run.Cases);
            Assert.True(single.LatencyUs.P50 > 0 && single.LatencyUs.P50 <= single.LatencyUs.P99, $"p50 {single.LatencyUs.P50}, p99 {single.LatencyUs.P99}");
            Assert.True(single.RequestsPerSecond > 0);
            Assert.Equal(0, single.Errors);
            Assert.Equal(("tcp", "io=sync", 1024, 500L), (single.Transport, single.Options, single.Size, single.Count));
            Assert.Equal(500, single.SamplesUs.Count);
            Assert.Equal("same-core", single.Placement);
            // The warm-up's time, in the record and on the screen: done, or measured with the JIT at work and said so.
            var warmUp = Assert.IsType<WarmUpFigures>(single.WarmUp);
            Assert.True(warmUp.AskedMs > 0, $"asked {warmUp.AskedMs} ms");
            // Each of the two is rounded to 0.1 ms in the record.
            Assert.True(warmUp.JitSettled || warmUp.AskedMs + warmUp.JitWaitMs >= WarmUp.JitSettleLimit.TotalMilliseconds - 0.2, $"{warmUp}");
            Assert.Contains(warmUp.JitSettled ? "until the JIT was done" : "NOT DONE at the bound", stdout);
            // The machine's wake-ups, measured with the run.
            var wakeUp = Assert.IsType<IpcBench.Reporting.WakeUpFigures>(run.Environment.WakeUp);
            Assert.Equal(OperatingSystem.IsLinux(), wakeUp.OneCpuUs > 0);
            Assert.Contains("## Wake-ups", await File.ReadAllTextAsync(Path.Combine(folder, "env.md"), TestContext.Current.CancellationToken));
            foreach (string file in new[] { "summary.md", "summary.csv", "env.md", "latency-by-size.svg", "percentiles.svg" })
            {
                Assert.True(File.Exists(Path.Combine(folder, file)), $"missing {file}");
            }
        }
        finally
        {
            File.Delete(json);
            if (Directory.Exists(results))
            {
                Directory.Delete(results, recursive: true);
            }
        }
    }

    [Fact]
    public async Task Ping_with_no_results_writes_no_run_folder()
    {
        string results = Path.Combine(Path.GetTempPath(), $"ipcbench-test-results-{Guid.NewGuid():N}");
        try
        {
            var (exit, _, stderr) = await RunWithAsync(new Dictionary<string, string> { ["IPCBENCH_RESULTS"] = results },
                "ping", "--transport", "tcp", "--count", "200", "--warmup", "0", "--no-results");
            Assert.True(exit == 0, stderr);
            Assert.False(Directory.Exists(results), "a run folder was written despite --no-results");
            Assert.DoesNotContain("results:", stderr);
        }
        finally
        {
            if (Directory.Exists(results))
            {
                Directory.Delete(results, recursive: true);
            }
        }
    }

    [Fact]
    public async Task Ping_times_whole_connect_cycles_in_the_connect_scenario()
    {
        string json = Path.Combine(Path.GetTempPath(), $"ipcbench-test-{Guid.NewGuid():N}.json");
        try
        {
            var (exit, stdout, stderr) = await RunAsync("ping", "--transport", "uds", "--scenario", "connect", "--count", "50",
                "--warmup", "0", "--json", json, "--no-results");
            Assert.True(exit == 0, stderr);
            Assert.Contains("connect + request + close cycles", stdout);
            var single = Assert.Single(IpcBench.Reporting.ResultsFile.Read(json).Cases);
            Assert.Equal((CaseKey.Connect, CaseKind.ColdStart), (single.Key.Scenario, single.Key.Kind));
            Assert.Equal("io=sync&scenario=connect", single.Options);
            Assert.Equal(50, single.Count);
            Assert.True(single.LatencyUs.P50 > 0);
            Assert.Null(single.WarmUp); // none asked for: none recorded, none printed
            Assert.DoesNotContain("warm-up", stdout);
        }
        finally
        {
            File.Delete(json);
        }
    }

    [Theory]
    [InlineData("ping --transport tcp --count 0", "--count must be a whole number")]
    [InlineData("ping --transport nope", "unknown transport 'nope'")]
    [InlineData("ping --transport tcp --placement sideways", "--placement must be none, same-core or cross-core, not 'sideways'")]
    [InlineData("ping --transport tcp --bogus", "Unrecognized command or argument '--bogus'")]
    [InlineData("ping --transport tcp --server tcp-nagle://127.0.0.1:1", "is not a tcp:// address")]
    [InlineData("ping --transport tcp --io maybe", "io must be sync or async, not 'maybe'")]
    [InlineData("ping --transport grpc --io async", "grpc has no option 'io'")]
    [InlineData("ping --transport mmf --option wait=nap", "wait must be spin, hybrid or block, not 'nap'")]
    [InlineData("ping --transport mmf --option wait", "--option takes NAME=VALUE, not 'wait'")]
    [InlineData("ping --transport mmf --wait spin --option wait=block", "wait is given twice")]
    [InlineData("ping --transport tcp --scenario cold", "--scenario must be steady, connect or start")]
    [InlineData("ping --transport tcp --results a --no-results", "--results and --no-results exclude each other")]
    [InlineData("ping --transport tcp --isolation netns --server tcp://127.0.0.1:1", "--isolation places the server ping starts")]
    [InlineData("ping --transport tcp --wait-for-server 5s", "--wait-for-server waits for a --server")]
    [InlineData("ping --transport tcp --isolation vm", "--isolation must be none, netns, container or sandbox, not 'vm'")]
    [InlineData("ping --transport tcp --count 10 --duration 1s", "--count and --duration exclude each other")]
    [InlineData("ping --transport tcp --rate 1000 --gap 1ms", "--rate and --gap exclude each other")]
    [InlineData("ping --transport tcp --rate fast", "--rate must be a positive rate in requests per second")]
    [InlineData("ping --transport tcp --clients 0", "--clients must be a whole number from 1 to 1024")]
    [InlineData("ping --transport tcp --warmup soon", "--warmup must be a number of requests from 0 to 100000000 or a duration")]
    [InlineData("ping --transport tcp --scenario connect --clients 2", "--scenario connect runs one echo cycle after another")]
    [InlineData("ping --transport tcp --clients 2 --client-processes 3", "--client-processes 3 needs at least as many --clients, not 2")]
    [InlineData("serve", "Option '--transport' is required")]
    [InlineData("serve --transport signalr --io async", "signalr has no option 'io'")]
    [InlineData("frobnicate", "Unrecognized command or argument 'frobnicate'")]
    [InlineData("ping --transport tcp --results /dev/null/x", "cannot write results to /dev/null/x: ")] // before measuring anything
    [InlineData("ping --transport tcp --server udp://127.0.0.1:1", "is not a tcp:// address")]
    [InlineData("ping --transport tcp --size 2GB", "--size must be")]
    [InlineData("ping --transport tcp --placement", "Required argument missing for option: '--placement'")]
    [InlineData("compare results/baseline", "Required argument 'CURRENT' missing")]
    public async Task Bad_options_exit_2_with_one_line_on_stderr(string commandLine, string message)
    {
        var (exit, stdout, stderr) = await RunAsync(commandLine.Split(' '));
        Assert.Equal(2, exit);
        Assert.Contains(message, stderr);
        Assert.Single(stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.Empty(stdout);
    }

    [Fact]
    public async Task A_failure_is_one_line_and_verbose_adds_the_stack_trace()
    {
        var (exit, _, stderr) = await RunAsync("ping", "--transport", "tcp", "--server", "tcp://127.0.0.1:1", "--count", "10", "--no-results");
        Assert.Equal(1, exit);
        Assert.Equal("ipcbench ping: error: could not connect to tcp://127.0.0.1:1/: connection refused (is the server running?)", stderr.Trim());

        var (verboseExit, _, verbose) = await RunAsync("ping", "--transport", "tcp", "--server", "tcp://127.0.0.1:1", "--count", "10", "--no-results", "--verbose");
        Assert.Equal(1, verboseExit);
        Assert.StartsWith(stderr.Trim(), verbose);
        Assert.Contains("   at IpcBench.", verbose);
    }

    [Fact]
    public async Task A_transport_this_OS_cannot_run_exits_3_and_says_why()
    {
        Assert.SkipWhen(OperatingSystem.IsWindows(), "grpc-pipe runs on Windows: this checks its refusal elsewhere");
        var (exit, _, stderr) = await RunAsync("ping", "--transport", "grpc-pipe");
        Assert.Equal(3, exit);
        Assert.Contains("grpc-pipe does not run here: Kestrel listens on named pipes only on Windows", stderr);
        var (listed, stdout, _) = await RunAsync("list");
        Assert.Equal(0, listed);
        Assert.Matches(@"grpc-pipe +rpc +no .*Kestrel listens on named pipes only on Windows", stdout);
    }

    [Fact]
    public async Task Ping_under_load_reports_every_client_and_an_open_loop_it_could_not_sustain()
    {
        var (exit, stdout, stderr) = await RunAsync("ping", "--transport", "uds", "--clients", "3", "--count", "600", "--warmup", "0", "--no-results");
        Assert.True(exit == 0, stderr);
        Assert.Contains("clients=3", stdout);
        Assert.Matches(@"clients +3: the slowest \d+ requests/s, the fastest \d+", stdout);
        Assert.Matches(@"x 600 ", stdout);

        // Ten million requests a second is beyond any transport here: the run must say so, not print what it managed as if asked.
        (exit, stdout, stderr) = await RunAsync("ping", "--transport", "uds", "--rate", "10000k", "--duration", "300ms", "--warmup", "0", "--no-results");
        Assert.True(exit == 0, stderr);
        Assert.Contains("NOT SUSTAINED", stdout);
    }

    [Fact]
    public async Task Client_processes_are_released_together_and_reported_as_one_run()
    {
        var (exit, stdout, stderr) = await RunAsync("ping", "--transport", "uds", "--clients", "3", "--client-processes", "2",
            "--count", "900", "--warmup", "30", "--no-results");
        Assert.True(exit == 0, stderr);
        Assert.Contains("client_processes=2&clients=3", stdout);
        Assert.Matches(@"x 900 ", stdout); // every request of every process in the percentiles
        Assert.Matches(@"clients +3: the slowest \d+ requests/s", stdout);
    }

    [Fact]
    public async Task A_killed_ping_leaves_no_client_process_behind()
    {
        Assert.SkipWhen(OperatingSystem.IsWindows(), "kills ping with SIGKILL, which Windows has not");
        using var cli = CliProcess.Start("ping", "--transport", "tcp", "--clients", "2", "--client-processes", "2", "--duration", "600s", "--no-results");
        var ping = cli.Process;
        _ = ping.StandardError.ReadToEndAsync(TestContext.Current.CancellationToken);
        List<int> workers;
        try
        {
            var started = DateTime.UtcNow + TimeSpan.FromSeconds(60);
            do
            {
                await Task.Delay(500, TestContext.Current.CancellationToken);
                workers = [.. Children(ping.Id).Where(pid => CommandLine(pid).Contains(" worker "))];
            }
            while (workers.Count < 2 && DateTime.UtcNow < started && !ping.HasExited);
            Assert.Equal(2, workers.Count);
            await Task.Delay(2000, TestContext.Current.CancellationToken); // the workers are measuring
        }
        finally
        {
            ping.Kill(); // SIGKILL: no chance to clean up; the workers see their stdin close (and a failed test leaves no 600 s run)
            await ping.WaitForExitAsync(TestContext.Current.CancellationToken);
        }
        var deadline = DateTime.UtcNow + TimeSpan.FromSeconds(20);
        while (workers.Any(pid => Directory.Exists($"/proc/{pid}")) && DateTime.UtcNow < deadline)
        {
            await Task.Delay(100, TestContext.Current.CancellationToken);
        }
        Assert.DoesNotContain(workers, pid => Directory.Exists($"/proc/{pid}") && CommandLine(pid).Contains(" worker "));
        foreach (int pid in Children(ping.Id))
        {
            Process.GetProcessById(pid).Kill(); // the server, which watches its parent on its own schedule
        }
    }

    private static IEnumerable<int> Children(int parent) =>
        Directory.EnumerateDirectories("/proc").Select(Path.GetFileName).Where(n => int.TryParse(n, out _)).Select(int.Parse!)
            .Where(pid => File.Exists($"/proc/{pid}/stat") && Stat(pid) is { } fields && fields.Length > 1 && fields[1] == parent.ToString(System.Globalization.CultureInfo.InvariantCulture));

    /// <summary>A process's stat fields after its name: state, ppid, ...; null when it is gone.</summary>
    private static string[]? Stat(int pid)
    {
        try
        {
            string stat = File.ReadAllText($"/proc/{pid}/stat");
            return stat[(stat.LastIndexOf(')') + 2)..].Split(' ');
        }
        catch (IOException)
        {
            return null;
        }
    }

    private static string CommandLine(int pid)
    {
        try
        {
            return File.ReadAllText($"/proc/{pid}/cmdline").Replace('\0', ' ');
        }
        catch (IOException)
        {
            return "";
        }
    }

    [Fact]
    public async Task A_load_the_transport_cannot_carry_is_not_supported_and_exits_3()
    {
        var (exit, _, stderr) = await RunAsync("ping", "--transport", "tcp", "--in-flight", "4");
        Assert.Equal(3, exit);
        Assert.Contains("tcp cannot run this load: it carries one request at a time on a connection", stderr);
    }

    [Fact]
    public async Task A_size_over_the_transport_maximum_is_not_supported_and_exits_3()
    {
        var (exit, _, stderr) = await RunAsync("ping", "--transport", "udp", "--size", "100KB");
        Assert.Equal(3, exit);
        Assert.Contains("102400 B exceeds the transport's maximum message size of 65503 B", stderr);
    }

    [Fact]
    public async Task An_unreachable_server_exits_1_quickly_with_a_clear_error()
    {
        var watch = Stopwatch.StartNew();
        var (exit, _, stderr) = await RunAsync("ping", "--transport", "tcp", "--server", $"tcp://127.0.0.1:{LoopbackPort.Free()}");
        Assert.Equal(1, exit);
        Assert.Contains("connection refused", stderr);
        Assert.True(watch.Elapsed < TimeSpan.FromSeconds(15), $"took {watch.Elapsed}");
    }

    [Fact]
    public async Task Help_lists_the_commands()
    {
        var (exit, stdout, _) = await RunAsync("--help");
        Assert.Equal(0, exit);
        Assert.Contains("serve", stdout);
        Assert.Contains("ping", stdout);
        var (pingExit, pingHelp, _) = await RunAsync("ping", "--help");
        Assert.Equal(0, pingExit);
        Assert.Contains("--placement", pingHelp);
    }

    [Fact]
    public async Task A_terminated_ping_says_so_in_one_line_exits_130_and_writes_nothing()
    {
        Assert.SkipWhen(OperatingSystem.IsWindows(), "stops ping with SIGTERM, which Windows has not");
        string results = Path.Combine(Path.GetTempPath(), $"ipcbench-test-results-{Guid.NewGuid():N}");
        using var cli = CliProcess.Start("ping", "--transport", "tcp", "--count", "100000000", "--results", results);
        var ping = cli.Process;
        var stderr = ping.StandardError.ReadToEndAsync(TestContext.Current.CancellationToken);
        await Task.Delay(3000, TestContext.Current.CancellationToken); // the server is up and requests flow
        using (var kill = Process.Start("kill", ["-TERM", ping.Id.ToString(System.Globalization.CultureInfo.InvariantCulture)]))
        {
            await kill.WaitForExitAsync(TestContext.Current.CancellationToken);
        }
        await ping.WaitForExitAsync(TestContext.Current.CancellationToken).WaitAsync(TimeSpan.FromSeconds(20), TestContext.Current.CancellationToken);
        Assert.Equal(130, ping.ExitCode);
        string errors = await stderr;
        Assert.Contains("ipcbench ping: interrupted", errors);
        Assert.DoesNotContain("   at ", errors); // no stack trace
        Assert.False(Directory.Exists(results), "an interrupted ping wrote a run folder");
    }

    /// <summary>A container pair's client may be given one CPU ('ipcbench isolations' cross-core pairs): its server is not its to pin.</summary>
    [Fact]
    public async Task A_client_on_one_cpu_pings_a_server_elsewhere_at_cross_core_placement()
    {
        Assert.SkipUnless(OperatingSystem.IsLinux(), "gives the client its one CPU with taskset, which is Linux's");
        int port = LoopbackPort.Free();
        using var server = CliProcess.Start("serve", "--transport", "tcp", "--address", $"tcp://127.0.0.1:{port}");
        var ping = ServerCommand.Resolve().StartInfo("ping", "--transport", "tcp", "--server", $"tcp://127.0.0.1:{port}",
            "--wait-for-server", "30s", "--placement", "cross-core", "--count", "200", "--warmup", "0", "--no-results");
        var pinned = ping.Under("taskset", "-c", "0");
        pinned.RedirectStandardOutput = pinned.RedirectStandardError = true;
        using var client = Process.Start(pinned)!;
        var stdout = client.StandardOutput.ReadToEndAsync(TestContext.Current.CancellationToken);
        var stderr = client.StandardError.ReadToEndAsync(TestContext.Current.CancellationToken);
        try
        {
            await client.WaitForExitAsync(TestContext.Current.CancellationToken).WaitAsync(RunTimeout, TestContext.Current.CancellationToken);
        }
        finally
        {
            ProcessTree.Kill(client); // nothing, when it ended in time
        }

        Assert.True(client.ExitCode == 0, await stderr);
        Assert.Contains("cross-core (client cpu 0; remote server not pinned)", await stdout);
    }

    [Fact]
    public async Task Ping_waits_for_a_server_that_starts_later_and_gives_up_on_one_that_never_does()
    {
        int port = LoopbackPort.Free();
        var ping = RunAsync("ping", "--transport", "tcp", "--server", $"tcp://127.0.0.1:{port}", "--wait-for-server", "30s",
            "--count", "200", "--warmup", "0", "--no-results");
        await Task.Delay(1500, TestContext.Current.CancellationToken); // ping is retrying by now
        using (CliProcess.Start("serve", "--transport", "tcp", "--address", $"tcp://127.0.0.1:{port}"))
        {
            var (exit, stdout, stderr) = await ping;
            Assert.True(exit == 0, stderr);
            Assert.Contains("waiting up to 30 s for the server", stderr);
            Assert.Contains("latency us", stdout);
        }

        var watch = Stopwatch.StartNew();
        var (gaveUp, _, error) = await RunAsync("ping", "--transport", "tcp", "--server", $"tcp://127.0.0.1:{LoopbackPort.Free()}", "--wait-for-server", "2s");
        Assert.Equal(1, gaveUp);
        Assert.Contains("connection refused", error);
        Assert.InRange(watch.Elapsed.TotalSeconds, 1.5, 20);
    }
}
