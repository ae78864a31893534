using IpcBench.Conformance;

namespace IpcBench.Tests;

/// <summary>
/// The redis-server stopped in the middle of a redis or redis-uds run: ping fails within seconds with one line and exit
/// 1, and writes no run folder; a password, from IPCBENCH_REDIS_URL or the address, logs in and is shown nowhere, and a
/// wrong one fails in one line. On redis-servers of the tests' own (Debian's, as ./test.sh installs it).
/// </summary>
public class RedisFaultTests
{
    [Theory]
    [InlineData("redis", true)]
    [InlineData("redis", false)]
    [InlineData("redis-uds", true)]
    public async Task A_password_logs_in_and_appears_nowhere(string transport, bool fromVariable)
    {
        string password = $"pw-{Guid.NewGuid():N}";
        await using var redis = await ScratchRedis.StartAsync(password);
        string results = Directory.CreateTempSubdirectory("ipcbench-test-results-").FullName;
        try
        {
            var environment = new Dictionary<string, string>
            {
                ["IPCBENCH_REDIS_URL"] = fromVariable ? $"redis://:{password}@127.0.0.1:{redis.Port}" : redis.Url,
                ["IPCBENCH_REDIS_SOCKET"] = redis.SocketPath,
                ["IPCBENCH_RESULTS"] = results,
            };
            string[] server = fromVariable ? [] : ["--server", $"redis://:{password}@127.0.0.1:{redis.Port}/?channel=nobody"];
            var (exit, stdout, stderr) = await CliTests.RunWithAsync(environment, ["ping", "--transport", transport, "--count", "50", .. server]);

            if (fromVariable)
            {
                Assert.True(exit == 0, stderr);
            }
            else
            {
                Assert.Equal(1, exit); // logged in, and found no server on that channel: said without the password
                Assert.Contains("no server subscribes", stderr);
            }
            Assert.DoesNotContain(password, stdout + stderr);
            foreach (string file in Directory.EnumerateFiles(results, "*", SearchOption.AllDirectories))
            {
                Assert.DoesNotContain(password, await File.ReadAllTextAsync(file, TestContext.Current.CancellationToken));
            }

            environment["IPCBENCH_REDIS_URL"] = $"redis://:wrong-{password}@127.0.0.1:{redis.Port}";
            var (wrongExit, wrongOut, wrongErr) = await CliTests.RunWithAsync(environment, "ping", "--transport", transport, "--count", "50", "--no-results");
            Assert.Equal(1, wrongExit);
            Assert.Single(wrongErr.Split('\n', StringSplitOptions.RemoveEmptyEntries), l => l.StartsWith("ipcbench ping: error: ", StringComparison.Ordinal));
            Assert.DoesNotContain(password, wrongOut + wrongErr);
        }
        finally
        {
            Directory.Delete(results, recursive: true);
        }
    }

    [Theory]
    [InlineData("redis")]
    [InlineData("redis-uds")]
    public async Task A_redis_server_stopped_mid_run_fails_the_run_within_seconds_with_one_line(string transport)
    {
        await using var redis = await ScratchRedis.StartAsync();
        // There: two multiplexer connections each for server and client, and this question's own.
        await ServerStoppedMidRun.AssertAsync(transport,
            new Dictionary<string, string> { ["IPCBENCH_REDIS_URL"] = redis.Url, ["IPCBENCH_REDIS_SOCKET"] = redis.SocketPath },
            async () => await redis.ConnectionCountAsync() >= 5, redis.StopAsync);
    }
}
