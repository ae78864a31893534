using IpcBench.Contract;
using IpcBench.Contract.Options;
using RabbitMQ.Client;
using RabbitMQ.Client.Exceptions;
using IConnection = IpcBench.Contract.IConnection;
using RabbitConnection = RabbitMQ.Client.IConnection;

namespace IpcBench.Transports.RabbitMQ;

/// <summary>
/// Request/reply through a RabbitMQ broker: requests go to the server's queue, replies come back by
/// direct reply-to (<c>amq.rabbitmq.reply-to</c>), matched by correlation id. Two broker hops per
/// round trip. <c>amqp</c> is the fast path (transient messages, an exclusive auto-delete queue);
/// <c>amqp-confirm</c> is what people pick a broker for: a durable queue, persistent messages,
/// publisher confirms awaited on every publish, and the server acknowledging each request only after
/// its reply is confirmed.
/// </summary>
public sealed class AmqpTransport : ITransport
{
    public static AmqpTransport Transient { get; } = new("amqp", "RabbitMQ: transient messages, direct reply-to (two broker hops)", confirm: false);

    public static AmqpTransport Confirmed { get; } = new("amqp-confirm",
        "RabbitMQ: durable queue, persistent messages, publisher confirms, acks after the reply (two broker hops)", confirm: true);

    private readonly bool _confirm;

    private AmqpTransport(string name, string description, bool confirm)
    {
        Name = name;
        Description = description;
        _confirm = confirm;
    }

    /// <summary>How long a durable request queue outlives a server that was killed before deleting it.</summary>
    public static readonly TimeSpan OrphanQueueExpiry = TimeSpan.FromSeconds(10);

    public TransportFamily Family => TransportFamily.Messaging;

    public string Name { get; }

    public string Description { get; }

    string ITransport.Broker => "rabbitmq-server";

    public string? UnsupportedReason => null;

    public ValueTask<string?> ProbeAsync(Uri? address, TimeSpan bound, CancellationToken ct = default) => Broker.UnreachableAsync(address, bound, ct);

    public TransportCapabilities Capabilities => new(
        TransportFeatures.Reliable | TransportFeatures.MessageBoundaries | TransportFeatures.CrossHost | TransportFeatures.Brokered,
        Kit.Framing.LengthPrefix.DefaultMaxPayload);

    /// <summary>The client awaits the library's async calls: there is no blocking mode to vary.</summary>
    public IReadOnlyList<TransportOption> Options => [Queue];

    /// <summary>The server's request queue, which the server names in the address it reports.</summary>
    internal static readonly TransportOption Queue = TransportOption.Text("queue",
        "the server's request queue (a server names its own unless given one, e.g. for a client in another container)", OptionScope.Address);

    public Uri DefaultAddress() => Broker.DefaultAddress(Name);

    public async ValueTask<IServer> StartServerAsync(Uri address, RequestHandler handler, CancellationToken ct = default)
    {
        var options = EndpointOptions.Parse(address, this);
        var factory = Broker.Factory(address, options.ConnectTimeout, "ipcbench server");
        var connection = await ConnectAsync(factory, address, ct).ConfigureAwait(false);
        try
        {
            string? named = OptionValues.Parse(address, this)[Queue] is { Length: > 0 } given ? given : null;
            return await AmqpServer.StartAsync(connection, Name, address, named, handler, _confirm, ct).ConfigureAwait(false);
        }
        catch
        {
            await connection.DisposeAsync().ConfigureAwait(false);
            throw;
        }
    }

    public async ValueTask<IConnection> ConnectAsync(Uri address, CancellationToken ct = default)
    {
        var values = OptionValues.Parse(address, this);
        var options = EndpointOptions.From(values);
        string queue = values.Required(Queue, address);
        var factory = Broker.Factory(address, options.ConnectTimeout, "ipcbench client");
        var connection = await ConnectAsync(factory, address, ct).ConfigureAwait(false);
        try
        {
            return await AmqpConnection.OpenAsync(connection, queue, Broker.Public(address).ToString(), options.RequestTimeout, options.ConnectTimeout, _confirm, ct).ConfigureAwait(false);
        }
        catch
        {
            await connection.DisposeAsync().ConfigureAwait(false);
            throw;
        }
    }

    private static async Task<RabbitConnection> ConnectAsync(ConnectionFactory factory, Uri address, CancellationToken ct)
    {
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(ct);
        timeout.CancelAfter(factory.RequestedConnectionTimeout + TimeSpan.FromSeconds(1));
        try
        {
            return await factory.CreateConnectionAsync(timeout.Token).ConfigureAwait(false);
        }
        catch (Exception e) when (e is BrokerUnreachableException or OperationCanceledException or OperationInterruptedException && !ct.IsCancellationRequested)
        {
            string why = e is OperationCanceledException ? $"no answer within {factory.RequestedConnectionTimeout.TotalMilliseconds:0} ms" : TransportErrors.Innermost(e).Message;
            throw new TransportException($"could not connect to {Broker.Public(address)}: the broker: {why}", e);
        }
    }
}
