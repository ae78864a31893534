using System.Diagnostics;

namespace IpcBench.Tests;

/// <summary>
/// The broker stopped in the middle of an amqp run: ping fails within seconds with one line and exit 1, leaves no server
/// behind and no run folder that claims to be whole. On a RabbitMQ node of the test's own, not the one other tests use.
/// </summary>
[Collection(Name)]
public class BrokerFaultTests
{
    public const string Name = "a broker of its own";

    [Theory]
    [InlineData("amqp")]
    [InlineData("amqp-confirm")]
    public async Task A_broker_stopped_mid_run_fails_the_run_within_seconds_with_one_line(string transport)
    {
        await using var broker = await ScratchBroker.StartAsync();
        string results = Directory.CreateTempSubdirectory("ipcbench-test-results-").FullName;
        try
        {
            var run = CliTests.RunWithAsync(new Dictionary<string, string>
            {
                ["IPCBENCH_RABBITMQ_URI"] = broker.Uri,
                ["IPCBENCH_RESULTS"] = results,
            }, "ping", "--transport", transport, "--duration", "40s", "--warmup", "0");

            // Mid-run: the server's queue exists and requests have been flowing for a moment.
            var deadline = DateTime.UtcNow + TimeSpan.FromSeconds(30);
            while (await broker.QueueCountAsync() == 0)
            {
                Assert.False(run.IsCompleted, $"ping ended before its server had a queue: {(run.IsCompleted ? (await run).Stderr : "")}");
                Assert.True(DateTime.UtcNow < deadline, "the server made no queue within 30 s");
                await Task.Delay(200);
            }
            await Task.Delay(1500);
            Assert.False(run.IsCompleted);

            var stopped = Stopwatch.StartNew();
            await broker.StopAsync();
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

[CollectionDefinition(BrokerFaultTests.Name, DisableParallelization = true)]
public sealed class BrokerFaultCollection;
