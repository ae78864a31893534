using System.Diagnostics;
using IpcBench.Harness.Measurement;
using IpcBench.Kit.Processes;

namespace IpcBench.Conformance;

/// <summary>
/// Faults in the middle of a run, per transport: the server stopped by SIGTERM or frozen, a client vanished. (A client
/// process killed: KilledClientTests; a server killed or frozen mid-exchange: ConformanceTests; the broker's client
/// queue: AmqpTests; the Mono host: WcfTests.)
/// </summary>
public class FaultTests
{
    [Theory]
    [MemberData(nameof(TransportCases.All), MemberType = typeof(TransportCases))]
    public async Task A_server_stopped_by_SIGTERM_mid_run_fails_its_clients_within_seconds_and_removes_its_files(string transport)
    {
        Assert.SkipWhen(OperatingSystem.IsWindows(), "stops the server with SIGTERM, which Windows has not");
        var server = await TestServer.StartAsync(transport);
        IReadOnlyList<string> files;
        try
        {
            await using var connection = await server.ConnectAsync(timeout: "2s");
            var exchange = new Exchange(connection, 64);
            Assert.True(await exchange.SendAsync(false, TestContext.Current.CancellationToken) >= 0);
            files = ServerFiles.AssertMadeBy(server);

            using (var term = Process.Start("kill", $"-TERM {server.Process.ProcessId}"))
            {
                await term.WaitForExitAsync(TestContext.Current.CancellationToken);
            }
            await ClientFailure.WithinSecondsAsync(exchange);
            using var exited = new CancellationTokenSource(TimeSpan.FromSeconds(10));
            int code = await server.Process.WaitForExitAsync(exited.Token);
            Assert.True(code == 0, $"exit code {code}, not a clean stop; the server's last stderr lines: {server.Process.RecentErrors}");
        }
        finally
        {
            await server.DisposeAsync();
        }
        ServerFiles.AssertGone(files, "the server stopped by SIGTERM");
    }

    /// <summary>
    /// A server frozen by SIGSTOP cannot remove its files when told to stop: whoever started it kills it after the stop
    /// timeout and removes what it made (its socket or channel files and their private directory).
    /// </summary>
    [Theory]
    [MemberData(nameof(TransportCases.MakingFiles), MemberType = typeof(TransportCases))]
    public async Task A_frozen_server_killed_by_its_starter_leaves_none_of_its_files(string transport)
    {
        Assert.SkipWhen(OperatingSystem.IsWindows(), "freezes the server with SIGSTOP, which Windows has not");
        var server = await TestServer.StartAsync(transport);
        IReadOnlyList<string> files;
        try
        {
            files = ServerFiles.AssertMadeBy(server);
            Assert.NotEmpty(files);
        }
        catch
        {
            await server.DisposeAsync();
            throw;
        }
        int[] tree = [server.Process.ProcessId, .. ProcessTree.Descendants(server.Process.ProcessId)];
        using (var stop = Process.Start("kill", $"-STOP {string.Join(' ', tree)}"))
        {
            await stop.WaitForExitAsync(TestContext.Current.CancellationToken);
        }

        await server.DisposeAsync(); // asks it to stop, waits, kills it

        ServerFiles.AssertGone(files, "the frozen server");
    }

    /// <summary>
    /// A client that vanishes without a FIN (its machine or link gone) must not hold a session forever: the TCP servers'
    /// accepted sockets carry keepalive probes (DeadPeerDetection, and the WCF host's own), seen here from the kernel's side.
    /// </summary>
    [Theory]
    [InlineData("tcp")]
    [InlineData("tcp-nagle")]
    [InlineData("tcp-tls")]
    [InlineData("wcf")] // the Mono host: keepalive only (SleeplessTcpTransport)
    [InlineData("thrift")] // Thrift's server socket, with keepalive on what it accepts (ProbingServerSocket)
    public async Task A_tcp_servers_sessions_probe_their_clients_so_a_vanished_one_is_dropped(string transport)
    {
        Assert.SkipUnless(OperatingSystem.IsLinux(), "reads the sockets' keepalive timers with ss, which is Linux's");
        await using var server = await TestServer.StartAsync(transport);
        await using var connection = await server.ConnectAsync();
        Assert.True(await new Exchange(connection, 64).SendAsync(false, TestContext.Current.CancellationToken) >= 0);

        string sockets = "";
        for (int i = 0; i < 30 && !sockets.Contains("timer:(keepalive,", StringComparison.Ordinal); i++)
        {
            await Task.Delay(100, TestContext.Current.CancellationToken); // once the last reply is acknowledged, the only timer left is keepalive's
            var ss = Process.Start(new ProcessStartInfo("ss", $"-tnoi state established ( sport = :{server.Process.Address.Port} )") { RedirectStandardOutput = true })!;
            sockets = await ss.StandardOutput.ReadToEndAsync(TestContext.Current.CancellationToken);
            await ss.WaitForExitAsync(TestContext.Current.CancellationToken);
        }

        Assert.Contains("timer:(keepalive,", sockets); // the server's side of the one connection
        Assert.Matches(@"keepalive,(2\d|30)sec", sockets); // DeadPeerDetection.IdleSeconds, not the kernel's two hours
    }
}
