using System.Diagnostics;
using IpcBench.Contract.Options;
using IpcBench.Harness;
using IpcBench.Transports;
using RabbitMQ.Client.Exceptions;
using RabbitMQ.Client;

namespace IpcBench.Conformance;

/// <summary>
/// The broker transports against the real broker that ./test.sh starts: they must run here, and no
/// server, stopped or killed, may leave a queue on the broker.
/// </summary>
public class AmqpTests
{
    [Theory]
    [InlineData("amqp")]
    [InlineData("amqp-confirm")]
    public async Task Runs_where_the_tests_run(string transport)
    {
        // The broker ./test.sh starts: a loaded machine may take a while to answer, so a probe is retried for 10 s.
        Assert.Null(await ServerWait.UnsupportedReasonAsync(TransportRegistry.Get(transport), null, TimeSpan.FromSeconds(10), TestContext.Current.CancellationToken));
    }

    [Theory]
    [InlineData("amqp", false)]
    [InlineData("amqp", true)]
    [InlineData("amqp-confirm", false)]
    [InlineData("amqp-confirm", true)]
    public async Task A_server_leaves_no_queue_behind(string transport, bool kill)
    {
        var server = await TestServer.StartAsync(transport);
        string queue = AddressQuery.Of(server.Process.Address)["queue"];
        Assert.True(await QueueExistsAsync(queue), $"{queue} should exist while its server runs");

        if (kill)
        {
            Process.GetProcessById(server.Process.ProcessId).Kill(); // no chance to delete anything
        }
        await server.DisposeAsync();

        // An exclusive queue goes with its connection; a durable one is deleted, or, when its server was
        // killed, expires once unused for a while. Asking about it counts as use, so ask only after that.
        if (kill && transport == "amqp-confirm")
        {
            await Task.Delay(Transports.RabbitMQ.AmqpTransport.OrphanQueueExpiry + TimeSpan.FromSeconds(3), TestContext.Current.CancellationToken);
        }
        var deadline = DateTime.UtcNow + TimeSpan.FromSeconds(5);
        while (await QueueExistsAsync(queue) && DateTime.UtcNow < deadline)
        {
            await Task.Delay(500, TestContext.Current.CancellationToken);
        }
        Assert.False(await QueueExistsAsync(queue), $"{queue} is left on the broker");
    }

    [Theory]
    [InlineData("amqp")]
    [InlineData("amqp-confirm")]
    public async Task A_server_given_a_queue_name_serves_on_it_and_removes_it(string transport)
    {
        // What a client in another container needs: a queue name known before the server prints READY.
        string queue = $"ipcbench-test-{Guid.NewGuid():N}";
        var server = await TestServer.StartAsync(transport, address: new Uri($"{transport}://127.0.0.1:5672/?queue={queue}"));
        Assert.Equal(queue, AddressQuery.Of(server.Process.Address)["queue"]);
        await using (var connection = await server.ConnectAsync())
        {
            byte[] reply = new byte[3];
            await connection.RequestAsync(new byte[] { 1, 2, 3 }, reply, CancellationToken.None);
            Assert.Equal(new byte[] { 1, 2, 3 }, reply);
        }
        await server.DisposeAsync();
        var deadline = DateTime.UtcNow + TimeSpan.FromSeconds(5);
        while (await QueueExistsAsync(queue) && DateTime.UtcNow < deadline)
        {
            await Task.Delay(500, TestContext.Current.CancellationToken);
        }
        Assert.False(await QueueExistsAsync(queue), $"{queue} is left on the broker");
    }

    /// <summary>Asks the broker about a queue without declaring it: 404 means gone; 405 means it exists but is another connection's exclusive queue.</summary>
    private static async Task<bool> QueueExistsAsync(string queue)
    {
        var factory = new ConnectionFactory { HostName = "127.0.0.1", AutomaticRecoveryEnabled = false };
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(10));
        await using var connection = await factory.CreateConnectionAsync(timeout.Token);
        await using var channel = await connection.CreateChannelAsync(cancellationToken: timeout.Token);
        try
        {
            await channel.QueueDeclarePassiveAsync(queue, timeout.Token);
            return true;
        }
        catch (OperationInterruptedException e) when (e.ShutdownReason?.ReplyCode is 404 or 405)
        {
            return e.ShutdownReason.ReplyCode == 405;
        }
    }
}
