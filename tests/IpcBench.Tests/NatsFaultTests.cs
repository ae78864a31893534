using IpcBench.Conformance;

namespace IpcBench.Tests;

/// <summary>
/// The nats-server stopped in the middle of a nats run: ping fails within seconds with one line and exit 1, and writes
/// no run folder. On a nats-server of the test's own (Debian's, as ./test.sh installs it), not the one other tests use.
/// </summary>
public class NatsFaultTests
{
    [Fact]
    public async Task A_nats_server_stopped_mid_run_fails_the_run_within_seconds_with_one_line()
    {
        await using var nats = await ScratchNats.StartAsync();
        await ServerStoppedMidRun.AssertAsync("nats", new Dictionary<string, string> { ["IPCBENCH_NATS_URL"] = nats.Url },
            async () => await nats.ConnectionCountAsync() >= 2, nats.StopAsync);
    }
}
