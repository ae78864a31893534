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
        // There: the server's queue exists.
        await ServerStoppedMidRun.AssertAsync(transport, new Dictionary<string, string> { ["IPCBENCH_RABBITMQ_URI"] = broker.Uri },
            async () => await broker.QueueCountAsync() > 0, broker.StopAsync);
    }
}

[CollectionDefinition(BrokerFaultTests.Name, DisableParallelization = true)]
public sealed class BrokerFaultCollection;
