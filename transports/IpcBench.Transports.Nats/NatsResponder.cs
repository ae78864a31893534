using IpcBench.Contract;
using IpcBench.Kit;
using System.Threading.Channels;
using NATS.Client.Core;

namespace IpcBench.Transports.Nats;

/// <summary>
/// Subscribes to the request subject and publishes each reply to the request's reply subject. A subject is no more
/// than a name on the nats-server: unsubscribing, or the connection ending (the server killed), leaves nothing there.
/// </summary>
internal sealed class NatsResponder : IServer
{
    private readonly NatsConnection _connection;
    private readonly INatsSub<NatsMemoryOwner<byte>> _subscription;
    private readonly RequestHandler _handler;
    private readonly Task _serving;
    private byte[] _reply = new byte[1024];

    private NatsResponder(NatsConnection connection, INatsSub<NatsMemoryOwner<byte>> subscription, Uri address, RequestHandler handler)
    {
        _connection = connection;
        _subscription = subscription;
        _handler = handler;
        Address = address;
        connection.MessageDropped += (_, _) =>
        {
            _dropped.Count($"nats server: dropped a request: {MaxPending} are waiting already");
            return ValueTask.CompletedTask;
        };
        _serving = Task.Run(ServeAsync);
    }

    private readonly DropCounter _dropped = new();

    public Uri Address { get; }

    /// <summary>
    /// Requests received and not yet answered, at most (NATS.Client.Core would hold 16,384, each up to the nats-server's
    /// max_payload): what a flood can make this server hold is bounded. Past it the newest is dropped with a warning, as NATS
    /// does for any slow consumer, and its client times out. Far above what IpcBench's loads keep in flight.
    /// </summary>
    public const int MaxPending = 256;

    public static async Task<NatsResponder> StartAsync(NatsConnection connection, string subject, Uri address, RequestHandler handler, CancellationToken ct)
    {
        var pending = new NatsSubOpts { ChannelOpts = new NatsSubChannelOpts { Capacity = MaxPending, FullMode = BoundedChannelFullMode.DropNewest } };
        var subscription = await connection.SubscribeCoreAsync<NatsMemoryOwner<byte>>(subject, opts: pending, cancellationToken: ct).ConfigureAwait(false);
        // NATS acknowledges no subscription: a ping answered after it shows the nats-server has it, before READY.
        await connection.PingAsync(ct).ConfigureAwait(false);
        return new NatsResponder(connection, subscription, address, handler);
    }

    private async Task ServeAsync()
    {
        await foreach (var request in _subscription.Msgs.ReadAllAsync().ConfigureAwait(false))
        {
            using var body = request.Data;
            if (request.ReplyTo is not { Length: > 0 })
            {
                Log.Warn("nats server: dropped a request without a reply subject");
                continue;
            }
            try
            {
                var payload = body.Memory;
                int capacity = _handler.ReplyCapacity(payload.Length);
                if (_reply.Length < capacity)
                {
                    _reply = new byte[Math.Max(capacity, 2 * _reply.Length)];
                }
                int length = _handler.Handle(payload.Span, _reply);
                await request.ReplyAsync<ReadOnlyMemory<byte>>(_reply.AsMemory(0, length)).ConfigureAwait(false);
            }
            catch (Exception e) when (e is not OperationCanceledException)
            {
                // One request's failure is its client's (it times out, as with any lost reply): every client shares
                // this loop, which goes on.
                Log.Warn($"nats server: a request went unanswered: {e.Message}");
            }
        }
    }

    public async ValueTask DisposeAsync()
    {
        await _subscription.DisposeAsync().ConfigureAwait(false); // unsubscribes; the loop ends with its channel
        if (await Task.WhenAny(_serving, Task.Delay(IServer.StopTimeout)).ConfigureAwait(false) != _serving)
        {
            Log.Warn($"nats server: its request loop did not end within {IServer.StopTimeout.TotalSeconds:0} s");
        }
        await _connection.DisposeAsync().ConfigureAwait(false);
        _dropped.Report("nats server");
    }
}
