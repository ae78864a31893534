using System.Diagnostics;
using IpcBench.Harness.Measurement;
using IpcBench.Kit.Processes;
using IpcBench.Transports;

namespace IpcBench.Conformance;

/// <summary>
/// The wcf server is a .NET Framework ServiceHost in a host process of its own (under Mono here), started
/// and supervised by 'ipcbench serve': it must answer at once, and never outlive its supervisor.
/// </summary>
public class WcfTests
{
    [Fact]
    public async Task Calls_are_answered_without_monos_50_ms_receive_sleep()
    {
        Assert.Null(TransportRegistry.Get("wcf").UnsupportedReason); // test.sh installs Mono
        await using var server = await TestServer.StartAsync("wcf");
        await using var connection = await server.ConnectAsync();
        var exchange = new Exchange(connection, 1024);
        var times = new List<double>();
        for (int i = 0; i < 30; i++)
        {
            long ticks = await exchange.SendAsync(false, TestContext.Current.CancellationToken);
            times.Add(ticks * 1000.0 / Stopwatch.Frequency);
        }
        times.Sort();
        // Mono's own NetTcp receive sleeps 50 ms before every message; far below that is the proof it is skipped.
        Assert.True(times[times.Count / 2] < 25, $"median call {times[times.Count / 2]:0.0} ms: the host sleeps before it receives again");
    }

    /// <summary>
    /// NetTcp's default connection buffer (8 KB) becomes the client socket's SO_RCVBUF; its 16 KB window is less than a
    /// loopback segment, so a 32 KB reply waits for the server's persist timer (200 ms, then 400). The default here
    /// must not; NetTcp's own default must still show the stall, or this test has stopped testing anything.
    /// </summary>
    [Theory]
    [InlineData("", false)]
    [InlineData("connection_buffer=8192", true)]
    public async Task A_32_KB_reply_waits_for_the_persist_timer_only_with_nettcps_8_KB_buffer(string variant, bool stalls)
    {
        await using var server = await TestServer.StartAsync("wcf", variant);
        await using var connection = await server.ConnectAsync();
        var exchange = new Exchange(connection, 32 * 1024);
        var times = new List<double>();
        for (int i = 0; i < 7; i++)
        {
            long ticks = await exchange.SendAsync(false, TestContext.Current.CancellationToken);
            times.Add(ticks * 1000.0 / Stopwatch.Frequency);
        }
        times.Sort();
        double median = times[times.Count / 2];
        Assert.True(stalls ? median >= 150 : median < 100, $"{(variant.Length > 0 ? variant : "the default")}: median call {median:0.0} ms");
    }

    /// <summary>
    /// Mono unmaps its large-object space's empty sections at every major collection, so its arrays over 8,000 bytes are
    /// made in memory faulted in afresh, about 25 pages for each 100 KB one; the host keeps 32 MiB of it mapped. Counted
    /// in the host's page faults, not in time: a fault's price is the machine's, their number is Mono's. mono_los=0 must
    /// still fault, or this test has stopped testing anything.
    /// </summary>
    [Theory]
    [InlineData("", false)]
    [InlineData("mono_los=0", true)]
    public async Task A_100_KB_call_faults_in_fresh_memory_only_when_the_host_keeps_no_large_object_space(string variant, bool faults)
    {
        await using var server = await TestServer.StartAsync("wcf", variant);
        int host = ProcessTree.Children(server.Process.ProcessId).Single();
        await using var connection = await server.ConnectAsync();
        var exchange = new Exchange(connection, 100 * 1024);
        for (int i = 0; i < 20; i++)
        {
            await exchange.SendAsync(false, TestContext.Current.CancellationToken); // the first calls compile code and map what is kept
        }
        const int Calls = 100;
        long before = MinorFaults(host);
        for (int i = 0; i < Calls; i++)
        {
            await exchange.SendAsync(false, TestContext.Current.CancellationToken);
        }
        double perCall = (MinorFaults(host) - before) / (double)Calls;
        Assert.True(faults ? perCall > 100 : perCall < 25, $"{(variant.Length > 0 ? variant : "the default")}: {perCall:0.0} page faults a call");
    }

    /// <summary>minflt, the 10th field of /proc/PID/stat (the 8th after the command's closing parenthesis).</summary>
    private static long MinorFaults(int pid) =>
        long.Parse(File.ReadAllText($"/proc/{pid}/stat").Split(')')[^1].Split(' ', StringSplitOptions.RemoveEmptyEntries)[7]);

    [Fact]
    public async Task The_host_exits_when_its_serve_process_is_killed()
    {
        Assert.Null(TransportRegistry.Get("wcf").UnsupportedReason); // test.sh installs Mono
        var server = await TestServer.StartAsync("wcf");
        int serve = server.Process.ProcessId;
        int host = ProcessTree.Children(serve).Single();
        try
        {
            Process.GetProcessById(serve).Kill(); // SIGKILL: the host's stdin closes, nothing else tells it
            using var hostProcess = Process.GetProcessById(host);
            using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(10));
            await hostProcess.WaitForExitAsync(timeout.Token);
        }
        finally
        {
            await server.DisposeAsync();
            if (Exists(host))
            {
                Process.GetProcessById(host).Kill(); // leave no orphan, even when the test fails
            }
        }
        Assert.False(Exists(host), $"the wcf host (pid {host}) outlived its serve process");
    }

    [Fact]
    public async Task A_host_killed_mid_run_fails_its_client_quickly_and_ends_its_serve_process_with_exit_1()
    {
        Assert.Null(TransportRegistry.Get("wcf").UnsupportedReason); // test.sh installs Mono
        await using var server = await TestServer.StartAsync("wcf");
        await using var connection = await server.ConnectAsync();
        var exchange = new Exchange(connection, 64);
        Assert.True(await exchange.SendAsync(false, TestContext.Current.CancellationToken) >= 0);

        Process.GetProcessById(ProcessTree.Children(server.Process.ProcessId).Single()).Kill(); // the Mono host only
        await ClientFailure.WithinSecondsAsync(exchange);

        // 'ipcbench serve' serves nothing without its host: it says why and exits 1 rather than linger.
        using var exited = new CancellationTokenSource(TimeSpan.FromSeconds(10));
        Assert.Equal(1, await server.Process.WaitForExitAsync(exited.Token));
        Assert.Contains("the wcf server stopped serving: the wcf host exited with code", server.Process.RecentErrors);
    }

    private static bool Exists(int pid)
    {
        try
        {
            using var p = Process.GetProcessById(pid);
            return !p.HasExited;
        }
        catch (ArgumentException)
        {
            return false;
        }
    }
}
