using IpcBench.Core.Contract;
using IpcBench.Core.Kit;
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
        _serving = Task.Run(ServeAsync);
    }

    public Uri Address { get; }

    public static async Task<NatsResponder> StartAsync(NatsConnection connection, string subject, Uri address, RequestHandler handler, CancellationToken ct)
    {
        var subscription = await connection.SubscribeCoreAsync<NatsMemoryOwner<byte>>(subject, cancellationToken: ct).ConfigureAwait(false);
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
                int length = _handler(payload.Span, _reply);
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
    }
}
