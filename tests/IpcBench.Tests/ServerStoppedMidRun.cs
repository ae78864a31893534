using System.Diagnostics;

namespace IpcBench.Tests;

/// <summary>
/// The one check of a broker (RabbitMQ, nats-server, redis-server) stopped in the middle of a ping: started with the
/// broker's variables, ping runs until the broker shows its server and client there, then a moment more; once the
/// broker is stopped, ping fails within 15 s with one line and exit 1, no stack trace, and no run folder.
/// </summary>
internal static class ServerStoppedMidRun
{
    /// <param name="variables">Where the broker is (its IPCBENCH_* variables).</param>
    /// <param name="connected">Whether ping's server and client are there yet, as the broker sees it.</param>
    /// <param name="stop">Stops the broker as an operator would.</param>
    public static async Task AssertAsync(string transport, IReadOnlyDictionary<string, string> variables, Func<Task<bool>> connected, Func<Task> stop)
    {
        string results = Directory.CreateTempSubdirectory("ipcbench-test-results-").FullName;
        try
        {
            var run = CliTests.RunWithAsync(new Dictionary<string, string>(variables) { ["IPCBENCH_RESULTS"] = results },
                "ping", "--transport", transport, "--duration", "40s", "--warmup", "0");

            // Mid-run: server and client are there and requests have been flowing for a moment.
            var deadline = DateTime.UtcNow + TimeSpan.FromSeconds(30);
            while (!await connected())
            {
                Assert.False(run.IsCompleted, $"ping ended before its server and client were there: {(run.IsCompleted ? (await run).Stderr : "")}");
                Assert.True(DateTime.UtcNow < deadline, "ping's server and client were not there within 30 s");
                await Task.Delay(200);
            }
            await Task.Delay(1500);
            Assert.False(run.IsCompleted);

            var stopped = Stopwatch.StartNew();
            await stop();
            var (exit, _, stderr) = await run;

            Assert.True(stopped.Elapsed < TimeSpan.FromSeconds(15), $"ping took {stopped.Elapsed} to notice");
            Assert.Equal(1, exit);
            string line = Assert.Single(stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries), l => l.StartsWith("ipcbench ping: ", StringComparison.Ordinal));
            Assert.StartsWith("ipcbench ping: error: ", line);
            Assert.DoesNotContain("   at ", stderr); // no stack trace without --verbose
            // A run that failed writes no run folder at all: nothing that report or compare could take for a run.
            Assert.Empty(Directory.GetFileSystemEntries(results));
        }
        finally
        {
            Directory.Delete(results, recursive: true);
        }
    }
}
