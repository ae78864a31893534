using IpcBench.Harness.Measurement;

namespace IpcBench.Conformance;

/// <summary>Every server that runs IpcBench's handler tells its client what serving cost it: the stats request (docs/wire-format.md).</summary>
public class StatsTests
{
    /// <summary>
    /// Its CPU time per request, and its anatomy (context switches, runnable wait, threads that ran), over any transport.
    /// The WCF server, a .NET Framework host under Mono, reads its own (HostCounters).
    /// </summary>
    [Theory]
    [MemberData(nameof(TransportCases.Handled), MemberType = typeof(TransportCases))]
    public async Task A_server_tells_its_share_of_the_requests_it_served(string transport)
    {
        await using var server = await TestServer.StartAsync(transport);
        await using var connection = await server.ConnectAsync();
        bool lossy = server.Transport.Capabilities.MayLoseMessages;
        var meter = await ServerStats.Meter.StartAsync(connection, lossy, TestContext.Current.CancellationToken);
        var exchange = new Exchange(connection, 16);
        for (int i = 0; i < 200; i++)
        {
            Assert.True(await exchange.SendAsync(lossy, TestContext.Current.CancellationToken) >= 0);
        }
        var share = await meter.StopAsync(TestContext.Current.CancellationToken);
        Assert.NotNull(share);
        Assert.InRange(share.CpuUsPerOp, 0.01, 100_000);
        Assert.NotNull(share.Anatomy);
        if (OperatingSystem.IsLinux())
        {
            Assert.NotNull(share.Anatomy.VoluntarySwitches);
            Assert.NotNull(share.Anatomy.RunnableWaitUs);
            Assert.InRange(share.Anatomy.ThreadsRan ?? 0, 1, 10_000);
        }
    }
}
