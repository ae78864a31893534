using System.Diagnostics;
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
        string results = Directory.CreateTempSubdirectory("ipcbench-test-results-").FullName;
        try
        {
            var run = CliTests.RunWithAsync(new Dictionary<string, string>
            {
                ["IPCBENCH_NATS_URL"] = nats.Url,
                ["IPCBENCH_RESULTS"] = results,
            }, "ping", "--transport", "nats", "--duration", "40s", "--warmup", "0");

            // Mid-run: server and client are connected and requests have been flowing for a moment.
            var deadline = DateTime.UtcNow + TimeSpan.FromSeconds(30);
            while (await nats.ConnectionCountAsync() < 2)
            {
                Assert.False(run.IsCompleted, $"ping ended before its server and client connected: {(run.IsCompleted ? (await run).Stderr : "")}");
                Assert.True(DateTime.UtcNow < deadline, "ping's server and client did not connect within 30 s");
                await Task.Delay(200);
            }
            await Task.Delay(1500);
            Assert.False(run.IsCompleted);

            var stopped = Stopwatch.StartNew();
            await nats.StopAsync();
            var (exit, _, stderr) = await run;

            Assert.True(stopped.Elapsed < TimeSpan.FromSeconds(15), $"ping took {stopped.Elapsed} to notice");
            Assert.Equal(1, exit);
            string line = Assert.Single(stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries), l => l.StartsWith("ipcbench ping: ", StringComparison.Ordinal));
            Assert.StartsWith("ipcbench ping: error: ", line);
            Assert.DoesNotContain("   at ", stderr);
            Assert.Empty(Directory.GetFileSystemEntries(results));
        }
        finally
        {
            Directory.Delete(results, recursive: true);
        }
    }
}
