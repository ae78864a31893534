using System.Buffers;
using System.Buffers.Binary;
using IpcBench.Contract;
using IpcBench.Kit;
using StackExchange.Redis;
using IServer = IpcBench.Contract.IServer;

namespace IpcBench.Transports.Redis;

/// <summary>
/// Subscribes to the request channel and publishes each reply to the channel its request names. A channel is no more
/// than a name on the redis-server: unsubscribing, or the connection ending (the server killed), leaves no key and no
/// subscription there.
/// </summary>
internal sealed class RedisResponder : IServer
{
    private readonly ConnectionMultiplexer _redis;
    private readonly ISubscriber _subscriber;
    private readonly RedisChannel _channel;
    private readonly byte[] _replyPrefix;
    private readonly RequestHandler _handler;
    private ReplyChannel? _lastReplyChannel;

    private RedisResponder(ConnectionMultiplexer redis, string channel, Uri address, RequestHandler handler)
    {
        _redis = redis;
        _subscriber = redis.GetSubscriber();
        _channel = RedisChannel.Literal(channel);
        _replyPrefix = System.Text.Encoding.UTF8.GetBytes(RedisMessages.ReplyChannelPrefix(channel));
        _handler = handler;
        Address = address;
    }

    public Uri Address { get; }

    public static async Task<RedisResponder> StartAsync(ConnectionMultiplexer redis, string channel, Uri address, RequestHandler handler, CancellationToken ct)
    {
        var responder = new RedisResponder(redis, channel, address, handler);
        try
        {
            // SUBSCRIBE is acknowledged: once this returns, the redis-server delivers the channel's messages to us.
            await responder._subscriber.SubscribeAsync(responder._channel, responder.OnRequest).WaitAsync(ct).ConfigureAwait(false);
        }
        catch (RedisException e)
        {
            throw new TransportException($"could not subscribe to {channel}: {e.Message}", e);
        }
        return responder;
    }

    /// <summary>
    /// Replies being published at once, at most: what a flood of requests can make this server hold is bounded (each
    /// reply at most <see cref="RedisTransport.MaxPayload"/>); past it a request is dropped with a warning, and its client
    /// times out as with any lost reply. Far above what IpcBench's loads keep in flight.
    /// </summary>
    public const int MaxAnswering = 256;

    private int _answering;

    private readonly DropCounter _dropped = new();

    // The library calls this for each message, in no guaranteed order; each reply has its own buffer.
    private void OnRequest(RedisChannel channel, RedisValue message)
    {
        if (Interlocked.Increment(ref _answering) > MaxAnswering)
        {
            Interlocked.Decrement(ref _answering);
            _dropped.Count($"redis server: dropped a request: {MaxAnswering} replies are being sent already");
            return;
        }
        _ = AnswerAsync(message);
    }

    private async Task AnswerAsync(ReadOnlyMemory<byte> message)
    {
        try
        {
            var (replyChannel, id, payload) = RedisMessages.ReadRequest(message);
            if (payload.Length > RedisTransport.MaxPayload)
            {
                throw new TransportException($"a request of {payload.Length} B is over the largest payload, {RedisTransport.MaxPayload} B");
            }
            if (!replyChannel.Span.StartsWith(_replyPrefix))
            {
                // Only a client's own reply channel: never another server's request channel, nor this one's (a loop).
                throw new TransportException($"a request named a reply channel outside {RedisMessages.ReplyChannelPrefix(_channel.ToString())}*");
            }
            byte[] reply = ArrayPool<byte>.Shared.Rent(RedisMessages.IdLength + _handler.ReplyCapacity(payload.Length));
            BinaryPrimitives.WriteInt64LittleEndian(reply, id);
            int length = _handler.Handle(payload.Span, reply.AsSpan(RedisMessages.IdLength));
            await _subscriber.PublishAsync(ReplyTo(replyChannel.Span), reply.AsMemory(0, RedisMessages.IdLength + length)).ConfigureAwait(false);
            ArrayPool<byte>.Shared.Return(reply);
        }
        catch (Exception e)
        {
            // One request's failure is its client's (it times out, as with any lost reply); the others go on.
            Log.Warn($"redis server: a request went unanswered: {e.Message}");
        }
        finally
        {
            Interlocked.Decrement(ref _answering);
        }
    }

    /// <summary>The reply channel's name as the library takes it, made again only when the client changes from one request to the next.</summary>
    private RedisChannel ReplyTo(ReadOnlySpan<byte> name)
    {
        var last = _lastReplyChannel;
        if (last is null || !name.SequenceEqual(last.Name))
        {
            byte[] copy = name.ToArray();
            _lastReplyChannel = last = new ReplyChannel(copy, new RedisChannel(copy, RedisChannel.PatternMode.Literal));
        }
        return last.Channel;
    }

    public async ValueTask DisposeAsync()
    {
        try
        {
            await _subscriber.UnsubscribeAsync(_channel).WaitAsync(IServer.StopTimeout).ConfigureAwait(false);
        }
        catch (Exception e) when (e is RedisException or TimeoutException)
        {
            Log.Warn($"redis server: unsubscribing failed ({e.Message}); the channel goes with the connection");
        }
        await RedisTransport.CloseAsync(_redis).ConfigureAwait(false);
        _dropped.Report("redis server");
    }

    private sealed record ReplyChannel(byte[] Name, RedisChannel Channel);
}
