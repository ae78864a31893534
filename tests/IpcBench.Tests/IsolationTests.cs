using System.Diagnostics;
using IpcBench.Conformance;
using IpcBench.Harness.Hosting;
using IpcBench.Kit.Processes;
using IpcBench.Reporting;

namespace IpcBench.Tests;

/// <summary>
/// <c>ping --isolation netns</c>: the server in a fresh network namespace across a veth pair (<c>container</c>: in PID, IPC,
/// UTS and mount namespaces too), and nothing of it (namespace, link, process) left after a run, even a killed one.
/// <c>--isolation sandbox</c> too: the server under gVisor. Where namespaces or gVisor cannot be had (not Linux, not root,
/// no runsc) these tests are skipped, saying why; that ping then exits 3 and says why is checked without root, as nobody
/// when the tests run as root.
/// </summary>
public class IsolationTests
{
    [Theory]
    [InlineData("tcp", "netns")]
    [InlineData("uds", "netns")]
    [InlineData("tcp", "container")]
    [InlineData("uds", "container")]
    public async Task Ping_in_a_network_namespace_crosses_a_veth_pair_and_leaves_nothing(string transport, string isolation)
    {
        RequireNamespaces();
        string results = Path.Combine(Path.GetTempPath(), $"ipcbench-test-results-{Guid.NewGuid():N}");
        try
        {
            var (exit, stdout, stderr) = await CliTests.RunWithAsync(new Dictionary<string, string> { ["IPCBENCH_RESULTS"] = results },
                "ping", "--transport", transport, "--isolation", isolation, "--count", "300", "--warmup", "0");
            Assert.True(exit == 0, stderr);
            Assert.Contains($"isolation={isolation}", stdout);
            if (transport == "tcp")
            {
                Assert.Contains("tcp://169.254.", stdout); // the namespace's end of the pair, link-local
            }

            var run = ResultsFile.Read(Assert.Single(Directory.GetDirectories(results)));
            Assert.Equal($"io=sync&isolation={isolation}", Assert.Single(run.Cases).Options);
            string described = run.Environment.Options["isolation"];
            string name = described.Split(' ', ':', '(')[2];
            Assert.StartsWith("ipcbench-", name);
            Assert.DoesNotContain(name, Namespaces());
            Assert.DoesNotContain($"ipcb{name.Split('-')[^1]}h", Links());
        }
        finally
        {
            if (Directory.Exists(results))
            {
                Directory.Delete(results, recursive: true);
            }
        }
    }

    [Theory]
    [InlineData("nats", "netns")]
    [InlineData("redis-uds", "netns")]
    [InlineData("redis-uds", "container")]
    public async Task A_broker_on_loopback_is_out_of_a_namespaces_reach_and_one_behind_a_socket_file_is_not(string transport, string isolation)
    {
        RequireNamespaces();
        await RunsHere.RequireAsync(transport);
        var (exit, stdout, stderr) = await CliTests.RunWithAsync(null, "ping", "--transport", transport, "--isolation", isolation,
            "--count", "300", "--warmup", "0", "--no-results");
        if (transport == "nats")
        {
            Assert.Equal(3, exit);
            Assert.Contains($"nats is not supported in isolation {isolation} here: its server reaches the broker on the host's loopback", stderr);
        }
        else
        {
            Assert.True(exit == 0, stderr);
            Assert.Contains($"isolation={isolation}) to redis-uds:///", stdout);
        }
    }

    /// <summary>
    /// <c>--isolation sandbox</c>: the server under gVisor (runsc do), reached through its socket file, and nothing of the
    /// sandbox left after the run.
    /// </summary>
    [Theory]
    [InlineData("uds")]
    [InlineData("pipe")]
    public async Task Ping_in_a_gvisor_sandbox_crosses_a_socket_file_and_leaves_nothing(string transport)
    {
        RequireSandbox();
        string results = Path.Combine(Path.GetTempPath(), $"ipcbench-test-results-{Guid.NewGuid():N}");
        try
        {
            var (exit, stdout, stderr) = await CliTests.RunWithAsync(new Dictionary<string, string> { ["IPCBENCH_RESULTS"] = results },
                "ping", "--transport", transport, "--isolation", "sandbox", "--count", "300", "--warmup", "0");
            Assert.True(exit == 0, stderr);
            Assert.DoesNotContain("did not stop", stderr); // the sandboxed server stopped when asked, not killed
            var run = ResultsFile.Read(Assert.Single(Directory.GetDirectories(results)));
            var sandboxed = Assert.Single(run.Cases);
            Assert.Equal("io=sync&isolation=sandbox", sandboxed.Options);
            Assert.Null(sandboxed.ServerCpuUsPerOp); // gVisor does not charge its kernel work to the server: it says it cannot tell
            Assert.Equal(GVisorSandbox.Description, run.Environment.Options["isolation"]);
            Assert.DoesNotContain(Directory.GetDirectories("/proc"), dir => File.Exists(Path.Combine(dir, "cmdline"))
                && ReadOrEmpty(Path.Combine(dir, "cmdline")).Contains("-force-overlay=false", StringComparison.Ordinal));
        }
        finally
        {
            if (Directory.Exists(results))
            {
                Directory.Delete(results, recursive: true);
            }
        }
    }

    /// <summary>
    /// Inside gVisor the server is pid 1, yet its files must carry the pid the host knows it by: when it stops answering
    /// (its sandbox frozen) ping kills it and removes its private directory by that pid, as it does a bare server's.
    /// </summary>
    [Fact]
    public async Task A_frozen_sandboxed_server_is_killed_and_its_private_directory_removed()
    {
        RequireSandbox();
        using var cli = CliProcess.Start("ping", "--transport", "uds", "--isolation", "sandbox", "--count", "100000000",
            "--timeout", "1s", "--no-results");
        var ping = cli.Process;
        _ = ping.StandardOutput.ReadToEndAsync(TestContext.Current.CancellationToken);
        var stderr = ping.StandardError.ReadToEndAsync(TestContext.Current.CancellationToken);
        int? runsc = null;
        string[] directories = [];
        var deadline = DateTime.UtcNow.AddSeconds(30);
        while (directories.Length == 0 && DateTime.UtcNow < deadline && !ping.HasExited)
        {
            await Task.Delay(200, TestContext.Current.CancellationToken);
            runsc ??= ProcessTree.Children(ping.Id).Cast<int?>()
                .FirstOrDefault(pid => ReadOrEmpty($"/proc/{pid}/cmdline").Contains("-force-overlay=false", StringComparison.Ordinal));
            directories = runsc is null ? [] : Directory.GetDirectories(Path.GetTempPath(), $"ipcbench-{runsc}-*");
        }
        Assert.True(directories.Length == 1, $"no private directory named after the sandbox's pid on the host ({runsc})");
        int sandbox = ProcessTree.Descendants(runsc!.Value).Single(pid => ReadOrEmpty($"/proc/{pid}/cmdline").StartsWith("runsc-sandbox", StringComparison.Ordinal));
        await Task.Delay(1000, TestContext.Current.CancellationToken); // requests flow

        using (var stop = Process.Start("kill", ["-STOP", $"{sandbox}"])!)
        {
            await stop.WaitForExitAsync(TestContext.Current.CancellationToken).WaitAsync(TimeSpan.FromSeconds(10), TestContext.Current.CancellationToken);
        }
        await ping.WaitForExitAsync(TestContext.Current.CancellationToken).WaitAsync(TimeSpan.FromSeconds(20), TestContext.Current.CancellationToken);

        Assert.Equal(1, ping.ExitCode);
        Assert.Contains("no reply", await stderr);
        Assert.False(Directory.Exists(directories[0]), $"the killed server's {directories[0]} is still there");
        var gone = DateTime.UtcNow.AddSeconds(10);
        while (ReadOrEmpty($"/proc/{sandbox}/cmdline").Length > 0 && DateTime.UtcNow < gone) // a zombie's is empty
        {
            await Task.Delay(100, TestContext.Current.CancellationToken);
        }
        Assert.True(ReadOrEmpty($"/proc/{sandbox}/cmdline").Length == 0, $"the frozen sandbox {sandbox} is still there");
    }

    [Theory]
    [InlineData("tcp", "no link-local network")]
    [InlineData("mmf", "keeps futexes to itself")]
    public async Task A_sandbox_without_docker_refuses_network_and_shared_memory_transports_saying_why(string transport, string why)
    {
        RequireSandbox(); // else that refusal comes first
        var (exit, _, stderr) = await CliTests.RunWithAsync(null, "ping", "--transport", transport, "--isolation", "sandbox", "--no-results");
        Assert.Equal(3, exit);
        Assert.Contains(why, stderr);
    }

    private static string ReadOrEmpty(string path)
    {
        try
        {
            return File.ReadAllText(path);
        }
        catch (IOException)
        {
            return ""; // the process is gone
        }
    }

    [Fact]
    public async Task Shared_memory_is_not_supported_in_a_container()
    {
        RequireNamespaces(); // else that refusal comes first
        var (exit, _, stderr) = await CliTests.RunWithAsync(null, "ping", "--transport", "mmf", "--isolation", "container", "--no-results");
        Assert.Equal(3, exit);
        Assert.Contains("mmf is not supported in isolation container here: its client and server meet on shared memory in /dev/shm", stderr);
    }

    [Theory]
    [InlineData("netns")]
    [InlineData("container")]
    public async Task A_killed_ping_leaves_no_namespace_link_or_server_behind(string isolation)
    {
        RequireNamespaces();
        using var cli = CliProcess.Start("ping", "--transport", "tcp", "--isolation", isolation, "--count", "100000000", "--no-results");
        var ping = cli.Process;
        string prefix = $"ipcbench-{ping.Id}-";
        string? name = null;
        var deadline = DateTime.UtcNow.AddSeconds(30);
        while (name is null && DateTime.UtcNow < deadline)
        {
            await Task.Delay(200, TestContext.Current.CancellationToken);
            name = Namespaces().FirstOrDefault(n => n.StartsWith(prefix, StringComparison.Ordinal));
        }
        Assert.NotNull(name);
        await Task.Delay(1000, TestContext.Current.CancellationToken); // the server is up and requests flow
        var serverPids = (await RunAsync("ip", "netns", "pids", name)).Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.NotEmpty(serverPids);
        if (isolation == "container")
        {
            // The server is the init of a PID namespace of its own: its NSpid line names its pid outside and 1 inside.
            Assert.Contains(serverPids, pid => File.ReadAllLines($"/proc/{pid.Trim()}/status")
                .Any(line => line.StartsWith("NSpid:", StringComparison.Ordinal) && line.Split('\t', StringSplitOptions.RemoveEmptyEntries)[^1] == "1"));
        }

        ping.Kill(); // SIGKILL: nothing in ping runs after it
        await ping.WaitForExitAsync(TestContext.Current.CancellationToken);

        await AssertGoneAsync(name, serverPids);
    }

    /// <summary>
    /// mmf's client waits on shared memory, not on a socket that could tell it anything: a server frozen mid-run (SIGSTOP)
    /// must fail it within its timeout and a second, in one line, whichever way it waits and wherever the server runs.
    /// </summary>
    [Theory]
    [InlineData("none", "spin")]
    [InlineData("none", "hybrid")]
    [InlineData("none", "block")]
    [InlineData("netns", "spin")]
    [InlineData("netns", "hybrid")]
    [InlineData("netns", "block")]
    public async Task A_frozen_mmf_server_fails_the_client_within_its_timeout_and_a_second(string isolation, string wait)
    {
        if (isolation != "none")
        {
            RequireNamespaces();
        }
        using var cli = CliProcess.Start("ping", "--transport", "mmf", "--wait", wait, "--isolation", isolation,
            "--count", "100000000", "--timeout", "1s", "--no-results");
        var ping = cli.Process;
        var errorLine = new TaskCompletionSource<string>(TaskCreationOptions.RunContinuationsAsynchronously);
        var frozen = new Stopwatch();
        var stderr = new System.Collections.Concurrent.ConcurrentQueue<string>(); // each line with its time after the freeze, for a failure
        ping.ErrorDataReceived += (_, e) =>
        {
            stderr.Enqueue($"{frozen.Elapsed.TotalSeconds:0.000} s: {e.Data}");
            if (e.Data?.StartsWith("ipcbench ping:", StringComparison.Ordinal) == true)
            {
                errorLine.TrySetResult(e.Data);
            }
        };
        ping.BeginErrorReadLine();
        _ = ping.StandardOutput.ReadToEndAsync(TestContext.Current.CancellationToken);
        int? server = null;
        var deadline = DateTime.UtcNow.AddSeconds(30);
        while (server is null && DateTime.UtcNow < deadline && !ping.HasExited)
        {
            await Task.Delay(200, TestContext.Current.CancellationToken);
            server = ProcessTree.Descendants(ping.Id).Cast<int?>().FirstOrDefault(pid => IsServe(pid!.Value));
        }
        Assert.True(server is not null, "ping started no server");
        await Task.Delay(2000, TestContext.Current.CancellationToken); // requests flow
        Assert.False(ping.HasExited);

        using (var stop = Process.Start("kill", ["-STOP", $"{server}"])!)
        {
            await stop.WaitForExitAsync(TestContext.Current.CancellationToken).WaitAsync(TimeSpan.FromSeconds(10), TestContext.Current.CancellationToken);
        }
        frozen.Start();
        string error = await errorLine.Task.WaitAsync(TimeSpan.FromSeconds(20), TestContext.Current.CancellationToken);

        Assert.True(frozen.Elapsed < TimeSpan.FromSeconds(2),
            $"the client failed {frozen.Elapsed.TotalSeconds:0.0} s after its server froze, its timeout 1 s; its stderr:\n{string.Join('\n', stderr)}");
        Assert.Contains("no reply", error);
        Assert.True(await ping.WaitForExitAsync(new CancellationTokenSource(TimeSpan.FromSeconds(20)).Token).ContinueWith(t => t.IsCompletedSuccessfully),
            "ping did not end after its error");
        Assert.Equal(1, ping.ExitCode);
        Assert.False(Directory.Exists($"/proc/{server}"), $"the frozen server {server} is still there");
    }

    private static bool IsServe(int pid) => ReadOrEmpty($"/proc/{pid}/cmdline").Split('\0').Contains("serve");

    /// <summary>
    /// A run killed with its janitor (a kill of the whole process tree) leaves its namespace: the next namespace made here
    /// removes it, with its link and hosts file, once its pid is gone; a namespace of a live process stays.
    /// </summary>
    [Fact]
    public async Task A_namespace_whose_run_is_gone_is_removed_by_the_next_one_and_a_live_runs_is_not()
    {
        RequireNamespaces();
        using var gone = Process.Start("true")!;
        await gone.WaitForExitAsync(TestContext.Current.CancellationToken);
        string id = Convert.ToHexStringLower(System.Security.Cryptography.RandomNumberGenerator.GetBytes(3));
        string stale = $"ipcbench-{gone.Id}-{id}", live = $"ipcbench-{Environment.ProcessId}-{id}";
        try
        {
            await RunAsync("ip", "netns", "add", stale);
            await RunAsync("ip", "link", "add", HostLink(stale), "type", "veth", "peer", "name", $"ipcb{id}n", "netns", stale);
            Directory.CreateDirectory($"/etc/netns/{stale}");
            await RunAsync("ip", "netns", "add", live);
            Assert.Contains(stale, Namespaces());
            Assert.Contains(HostLink(stale), Links());

            await NetworkNamespace.RemoveStaleAsync();

            await AssertGoneAsync(stale, []);
            Assert.Contains(live, Namespaces());
        }
        finally
        {
            await RunAsync("ip", "netns", "del", live);
            if (Directory.Exists($"/etc/netns/{stale}")) // the sweep failed: what it should have removed goes here
            {
                await RunAsync("ip", "netns", "del", stale);
                await RunAsync("ip", "link", "del", HostLink(stale));
                Directory.Delete($"/etc/netns/{stale}", recursive: true);
            }
        }
    }

    /// <summary>
    /// A server that listens on loopback alone (orleans' localhost clustering) is refused every isolation with why, on any
    /// machine, before anything starts, rather than failing to bind there; akka, which binds where its client reaches it, is not.
    /// </summary>
    [Theory]
    [InlineData(Isolation.Netns)]
    [InlineData(Isolation.Container)]
    [InlineData(Isolation.Sandbox)]
    public void A_server_on_loopback_alone_is_refused_isolation_with_the_reason(Isolation isolation)
    {
        Assert.Contains("loopback alone", isolation.Refuses(IpcBench.Transports.TransportRegistry.Get("orleans")), StringComparison.Ordinal);
        Assert.DoesNotContain("loopback alone", isolation.Refuses(IpcBench.Transports.TransportRegistry.Get("akka")) ?? "", StringComparison.Ordinal);
        Assert.Null(Isolation.None.Refuses(IpcBench.Transports.TransportRegistry.Get("orleans")));
    }

    /// <summary>
    /// Transports that cross a network, whose server a namespace can hold (not a broker's client: the broker is outside it),
    /// whether or not they run here: read when tests are discovered, so it asks nothing of the machine (RunsHere does, later).
    /// </summary>
    public static TheoryData<string> Networked => [.. IpcBench.Transports.TransportRegistry.All
        .Where(t => t.Capabilities.Has(IpcBench.Contract.TransportFeatures.CrossHost) && !t.Capabilities.Has(IpcBench.Contract.TransportFeatures.Brokered))
        .Select(t => t.Name)];

    /// <summary>
    /// A peer that disappears without closing: the link to the server's namespace goes down mid-run, so no FIN, no reset,
    /// nothing arrives. The client must fail within its timeout (udp, which counts a lost reply and goes on, once
    /// RequestLoop.MaxConsecutiveLosses are lost in a row), in one line, and leave nothing behind.
    /// </summary>
    [Theory]
    [MemberData(nameof(Networked))]
    public async Task A_link_dropped_mid_run_fails_the_client_within_its_timeout_and_leaves_nothing(string transport)
    {
        RequireNamespaces();
        await RunsHere.RequireAsync(transport);
        using var ping = CliProcess.Start("ping", "--transport", transport, "--isolation", "netns", "--count", "100000000", "--timeout", "1s", "--no-results");
        await DropTheLinkMidRunAsync(ping.Process);
    }

    private static async Task DropTheLinkMidRunAsync(Process ping)
    {
        var stderr = ping.StandardError.ReadToEndAsync();
        _ = ping.StandardOutput.ReadToEndAsync();
        string prefix = $"ipcbench-{ping.Id}-";
        string? name = null;
        var deadline = DateTime.UtcNow.AddSeconds(30);
        while (name is null && DateTime.UtcNow < deadline && !ping.HasExited)
        {
            await Task.Delay(200);
            name = Namespaces().FirstOrDefault(n => n.StartsWith(prefix, StringComparison.Ordinal));
        }
        Assert.True(name is not null, $"no namespace of ping's: {(ping.HasExited ? await stderr : "")}");
        await Task.Delay(2000); // the server is up and requests flow
        Assert.False(ping.HasExited, await Task.WhenAny(stderr, Task.Delay(100)) == stderr ? await stderr : "");
        var serverPids = (await RunAsync("ip", "netns", "pids", name)).Split('\n', StringSplitOptions.RemoveEmptyEntries);
        var dropped = Stopwatch.StartNew();
        await RunAsync("ip", "link", "set", HostLink(name), "down");
        bool ended = await ping.WaitForExitAsync(new CancellationTokenSource(TimeSpan.FromSeconds(25)).Token).ContinueWith(t => t.IsCompletedSuccessfully);

        Assert.True(ended, $"ping still running {dropped.Elapsed.TotalSeconds:0} s after its link went down");
        Assert.Equal(1, ping.ExitCode);
        string error = Assert.Single((await stderr.WaitAsync(TimeSpan.FromSeconds(10))).Split('\n', StringSplitOptions.RemoveEmptyEntries),
            l => l.StartsWith("ipcbench ping:", StringComparison.Ordinal));
        Assert.Contains("error", error);
        await AssertGoneAsync(name, serverPids);
    }

    /// <summary>
    /// Without root, ping in a namespace, a container or a sandbox exits 3 and says why. Run without root whoever runs the
    /// tests: as nobody (setpriv) when they run as root, as CI's do, so that the refusal is checked there too.
    /// </summary>
    [Theory]
    [InlineData("tcp", "netns", "making a network namespace needs root")]
    [InlineData("uds", "container", "making a network namespace needs root")]
    [InlineData("uds", "sandbox", "runsc do needs root")]
    public async Task Without_root_ping_in_isolation_exits_3_and_says_why(string transport, string isolation, string why)
    {
        Assert.SkipUnless(OperatingSystem.IsLinux(), "namespaces and gVisor are Linux's: elsewhere the refusal names the OS, not root");
        var (exit, stdout, stderr) = await RunWithoutRootAsync("ping", "--transport", transport, "--isolation", isolation, "--count", "10", "--no-results");
        Assert.True(exit == 3, $"exit {exit}: {stderr}");
        Assert.Equal($"ipcbench ping: {transport} is not supported in isolation {isolation} here: {why}", stderr.Trim());
        Assert.Empty(stdout);
    }

    /// <summary>ipcbench run by a user without root: this process's own user, or nobody when this process has root.</summary>
    private static async Task<(int Exit, string Stdout, string Stderr)> RunWithoutRootAsync(params string[] args)
    {
        if (!Environment.IsPrivilegedProcess)
        {
            return await CliTests.RunWithAsync(null, args);
        }
        var ipcbench = ServerCommand.Resolve().StartInfo(args);
        string[] asNobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--", ipcbench.FileName, .. ipcbench.ArgumentList];
        var probe = await RunToEndAsync([.. asNobody[..^args.Length], "--version"]);
        Assert.SkipWhen(probe.Exit != 0, $"runs ipcbench as nobody to be without root, and nobody cannot run this build here: {probe.Stderr.Trim()}");
        return await RunToEndAsync(asNobody);
    }

    private static async Task<(int Exit, string Stdout, string Stderr)> RunToEndAsync(string[] command)
    {
        var info = new ProcessStartInfo(command[0]) { RedirectStandardOutput = true, RedirectStandardError = true, WorkingDirectory = "/" };
        foreach (string arg in command[1..])
        {
            info.ArgumentList.Add(arg);
        }
        using var process = Process.Start(info)!;
        var stdout = process.StandardOutput.ReadToEndAsync(TestContext.Current.CancellationToken);
        var stderr = process.StandardError.ReadToEndAsync(TestContext.Current.CancellationToken);
        await process.WaitForExitAsync(TestContext.Current.CancellationToken).WaitAsync(TimeSpan.FromMinutes(1), TestContext.Current.CancellationToken);
        return (process.ExitCode, await stdout, await stderr);
    }

    /// <summary>Skips the test, saying why, where network namespaces cannot be made here (not Linux, not root).</summary>
    private static void RequireNamespaces()
    {
        if (NetworkNamespace.UnsupportedReason is { } reason)
        {
            Assert.Skip($"needs a network namespace, which cannot be made here: {reason}");
        }
    }

    /// <summary>Skips the test, saying why, where no server can run under gVisor here (not Linux, not root, no runsc).</summary>
    private static void RequireSandbox()
    {
        if (GVisorSandbox.UnsupportedReason is { } reason)
        {
            Assert.Skip($"needs a gVisor sandbox, which cannot be had here: {reason}");
        }
    }

    /// <summary>Within 15 s, the namespace <paramref name="name"/>, its host link and the server processes in it are gone.</summary>
    private static async Task AssertGoneAsync(string name, string[] serverPids)
    {
        var deadline = DateTime.UtcNow.AddSeconds(15);
        while (DateTime.UtcNow < deadline && (Namespaces().Contains(name)
            || serverPids.Any(pid => Directory.Exists($"/proc/{pid.Trim()}"))))
        {
            await Task.Delay(200);
        }
        Assert.DoesNotContain(name, Namespaces());
        Assert.DoesNotContain(HostLink(name), Links());
        Assert.All(serverPids, pid => Assert.False(Directory.Exists($"/proc/{pid.Trim()}"), $"server process {pid} is still running"));
        Assert.False(Directory.Exists($"/etc/netns/{name}"), $"/etc/netns/{name} is left behind");
    }

    /// <summary>The host end of a namespace's veth pair, as NetworkNamespace names it.</summary>
    private static string HostLink(string name) => $"ipcb{name.Split('-')[^1]}h";

    /// <summary>
    /// The namespaces 'ip netns' names, and the network links here, read from the files 'ip' reads: the polls start no
    /// process, so the test host forks less (a runtime bug around SIGCHLD and process start once hung it here).
    /// </summary>
    private static string[] Namespaces() => Directory.Exists("/run/netns") ? [.. Directory.GetFiles("/run/netns").Select(f => Path.GetFileName(f))] : [];

    private static string[] Links() => [.. Directory.GetFileSystemEntries("/sys/class/net").Select(f => Path.GetFileName(f))];

    private static async Task<string> RunAsync(string file, params string[] args)
    {
        var info = new ProcessStartInfo(file) { RedirectStandardOutput = true };
        foreach (string arg in args)
        {
            info.ArgumentList.Add(arg);
        }
        using var process = Process.Start(info)!;
        string output = await process.StandardOutput.ReadToEndAsync().WaitAsync(TimeSpan.FromSeconds(10));
        await process.WaitForExitAsync().WaitAsync(TimeSpan.FromSeconds(10));
        return output;
    }
}
