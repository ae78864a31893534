using System.Diagnostics;
using IpcBench.Conformance;

namespace IpcBench.Tests;

/// <summary>
/// The redis-server stopped in the middle of a redis or redis-uds run: ping fails within seconds with one line and exit
/// 1, and writes no run folder. On a redis-server of the test's own (Debian's, as ./test.sh installs it).
/// </summary>
public class RedisFaultTests
{
    [Theory]
    [InlineData("redis")]
    [InlineData("redis-uds")]
    public async Task A_redis_server_stopped_mid_run_fails_the_run_within_seconds_with_one_line(string transport)
    {
        await using var redis = await ScratchRedis.StartAsync();
        string results = Directory.CreateTempSubdirectory("ipcbench-test-results-").FullName;
        try
        {
            var run = CliTests.RunWithAsync(new Dictionary<string, string>
            {
                ["IPCBENCH_REDIS_URL"] = redis.Url,
                ["IPCBENCH_REDIS_SOCKET"] = redis.SocketPath,
                ["IPCBENCH_RESULTS"] = results,
            }, "ping", "--transport", transport, "--duration", "40s", "--warmup", "0");

            // Mid-run: server and client are connected (two multiplexer connections each, and this question's own).
            var deadline = DateTime.UtcNow + TimeSpan.FromSeconds(30);
            while (await redis.ConnectionCountAsync() < 5)
            {
                Assert.False(run.IsCompleted, $"ping ended before its server and client connected: {(run.IsCompleted ? (await run).Stderr : "")}");
                Assert.True(DateTime.UtcNow < deadline, "ping's server and client did not connect within 30 s");
                await Task.Delay(200);
            }
            await Task.Delay(1500);
            Assert.False(run.IsCompleted);

            var stopped = Stopwatch.StartNew();
            await redis.StopAsync();
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
