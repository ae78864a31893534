using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Kit;
using IpcBench.Kit.Files;
using RabbitMQ.Client;
using RabbitMQ.Client.Events;
using RabbitConnection = RabbitMQ.Client.IConnection;

namespace IpcBench.Transports.RabbitMQ;

/// <summary>
/// Consumes the request queue and publishes each reply to the request's reply-to with its
/// correlation id. The queue goes away with the server: exclusive and auto-delete for <c>amqp</c>;
/// for the durable <c>amqp-confirm</c> queue, deleted on stop and set to expire if the server is killed.
/// </summary>
internal sealed class AmqpServer : IServer
{
    private readonly RabbitConnection _connection;
    private readonly IChannel _channel;
    private readonly string _queue;
    private readonly bool _durable;
    private readonly RequestHandler _handler;
    private readonly BasicProperties _replyProperties = new();
    private byte[] _reply = new byte[1024];

    private AmqpServer(RabbitConnection connection, IChannel channel, string queue, bool durable, Uri address, RequestHandler handler)
    {
        _connection = connection;
        _channel = channel;
        _queue = queue;
        _durable = durable;
        _handler = handler;
        Address = address;
    }

    public Uri Address { get; }

    /// <param name="named">The request queue's name, or null for one of the server's own making.</param>
    public static async Task<AmqpServer> StartAsync(RabbitConnection connection, string scheme, Uri address, string? named,
        RequestHandler handler, bool durable, CancellationToken ct)
    {
        var channel = await connection.CreateChannelAsync(new CreateChannelOptions(durable, durable), ct).ConfigureAwait(false);
        string queue = durable
            ? (await channel.QueueDeclareAsync(named ?? $"ipcbench-{PrivateDirectory.UniqueName()}", durable: true, exclusive: false, autoDelete: false,
                arguments: new Dictionary<string, object?> { ["x-expires"] = (int)AmqpTransport.OrphanQueueExpiry.TotalMilliseconds },
                cancellationToken: ct).ConfigureAwait(false)).QueueName
            : (await channel.QueueDeclareAsync(named ?? "", durable: false, exclusive: true, autoDelete: true, cancellationToken: ct).ConfigureAwait(false)).QueueName;
        await channel.BasicQosAsync(0, 1, false, ct).ConfigureAwait(false);

        var bound = AddressQuery.With(Broker.Public(address), AmqpTransport.Queue.Name, queue);
        var server = new AmqpServer(connection, channel, queue, durable, bound, handler);
        var consumer = new AsyncEventingBasicConsumer(channel);
        consumer.ReceivedAsync += server.OnRequestAsync;
        await channel.BasicConsumeAsync(queue, autoAck: !durable, consumer, ct).ConfigureAwait(false);
        return server;
    }

    private async Task OnRequestAsync(object sender, BasicDeliverEventArgs request)
    {
        if (request.BasicProperties.ReplyTo is not { Length: > 0 } replyTo)
        {
            Log.Warn($"amqp server: dropped a request without reply-to");
            await AckAsync(request).ConfigureAwait(false);
            return;
        }
        if (_reply.Length < _handler.ReplyCapacity(request.Body.Length))
        {
            _reply = new byte[Math.Max(_handler.ReplyCapacity(request.Body.Length), 2 * _reply.Length)];
        }
        int length = _handler.Handle(request.Body.Span, _reply); // the body is valid only inside this callback
        _replyProperties.CorrelationId = request.BasicProperties.CorrelationId;
        _replyProperties.DeliveryMode = _durable ? DeliveryModes.Persistent : DeliveryModes.Transient;
        // With confirms on, this completes once the broker has taken the reply.
        await _channel.BasicPublishAsync("", replyTo, mandatory: false, _replyProperties, _reply.AsMemory(0, length)).ConfigureAwait(false);
        await AckAsync(request).ConfigureAwait(false);
    }

    private ValueTask AckAsync(BasicDeliverEventArgs request) =>
        _durable ? _channel.BasicAckAsync(request.DeliveryTag, multiple: false) : ValueTask.CompletedTask;

    public async ValueTask DisposeAsync()
    {
        // A durable queue is deleted; an exclusive one goes with the connection.
        string? failure = await Broker.CloseAsync(_channel, _connection,
            _durable ? async channel => await channel.QueueDeleteAsync(_queue).ConfigureAwait(false) : null).ConfigureAwait(false);
        if (failure is not null)
        {
            Log.Warn($"amqp server: the broker connection was already gone at stop: {failure}");
        }
    }
}
