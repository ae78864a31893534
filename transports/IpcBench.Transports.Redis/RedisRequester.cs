using System.Buffers;
using System.Buffers.Binary;
using System.Collections.Concurrent;
using System.Diagnostics;
using IpcBench.Contract;
using IpcBench.Kit;
using StackExchange.Redis;

namespace IpcBench.Transports.Redis;

/// <summary>
/// The client: subscribes to a reply channel of its own, publishes each request to the server's channel with that
/// channel's name and an id, and completes the request whose id a reply carries. Requests are independent, so several
/// may be in flight on one connection. A late reply (after its request timed out) is dropped, so the connection stays
/// usable; a lost redis-server fails every waiting request at once and the connection for good.
/// </summary>
internal sealed class RedisRequester : IProbedConnection
{
    private readonly ConnectionMultiplexer _redis;
    private readonly ISubscriber _subscriber;
    private readonly RedisChannel _server;
    private readonly RedisChannel _replies;
    private readonly byte[] _repliesName;
    private readonly string _peer;
    private readonly ConcurrentDictionary<long, PendingReply> _pending = new();
    private TimeSpan _timeout;
    private long _sequence;
    private volatile string? _lost;

    private RedisRequester(ConnectionMultiplexer redis, string serverChannel, string repliesChannel, string peer, TimeSpan timeout)
    {
        _redis = redis;
        _subscriber = redis.GetSubscriber();
        _server = RedisChannel.Literal(serverChannel);
        _repliesName = RedisMessages.ChannelName(repliesChannel);
        _replies = new RedisChannel(_repliesName, RedisChannel.PatternMode.Literal);
        _peer = peer;
        _timeout = timeout;
    }

    /// <param name="timeout">Each request's, for its publish and its reply.</param>
    /// <param name="connectTimeout">The subscription's, which is part of connecting.</param>
    public static async Task<RedisRequester> OpenAsync(ConnectionMultiplexer redis, string serverChannel, string peer, TimeSpan timeout,
        TimeSpan connectTimeout, CancellationToken ct)
    {
        var requester = new RedisRequester(redis, serverChannel, RedisMessages.ReplyChannelPrefix(serverChannel) + Guid.NewGuid().ToString("N"), peer, timeout);
        redis.ConnectionFailed += requester.OnConnectionFailed;
        try
        {
            // Subscribed before the first request, as Redis drops a message that finds no subscriber.
            await requester._subscriber.SubscribeAsync(requester._replies, requester.OnReply).WaitAsync(connectTimeout, ct).ConfigureAwait(false);
        }
        catch (Exception e) when (e is RedisException or TimeoutException) // the library's RedisTimeoutException is both
        {
            throw new TransportException($"could not subscribe to a reply channel at {peer} within {connectTimeout.TotalMilliseconds:0} ms: {e.Message}", e);
        }
        return requester;
    }

    public TimeSpan ReplyTimeout
    {
        set => _timeout = value;
    }

    public async ValueTask<int> RequestAsync(ReadOnlyMemory<byte> request, Memory<byte> reply, CancellationToken ct = default)
    {
        if (_lost is { } lost)
        {
            throw new TransportException(lost);
        }
        FrameTooLargeException.ThrowIfTooLarge(request.Length, RedisTransport.MaxPayload);
        long id = Interlocked.Increment(ref _sequence);
        var pending = new PendingReply(reply);
        _pending[id] = pending;
        byte[] message = ArrayPool<byte>.Shared.Rent(RedisMessages.RequestLength(_repliesName, request.Length));
        bool published = false;
        var timeout = _timeout;
        long start = Stopwatch.GetTimestamp(); // one deadline for the publish and the reply
        try
        {
            int length = RedisMessages.WriteRequest(message, _repliesName, id, request.Span);
            long subscribers = await _subscriber.PublishAsync(_server, message.AsMemory(0, length)).WaitAsync(timeout, ct).ConfigureAwait(false);
            published = true; // the library is done with the buffer once Redis has answered the publish
            if (subscribers == 0)
            {
                throw new TransportException($"no server subscribes at {_peer}: it is gone, or was never there");
            }
            var left = timeout - Stopwatch.GetElapsedTime(start);
            return await pending.Done.Task.WaitAsync(left > TimeSpan.Zero ? left : TimeSpan.Zero, ct).ConfigureAwait(false);
        }
        catch (TimeoutException) when (!pending.Abandon())
        {
            return await pending.Done.Task.ConfigureAwait(false); // its reply came as the wait ran out, and is being copied
        }
        catch (TimeoutException) when (!published)
        {
            pending.Abandon(); // its buffer stays with the library, which may still send it
            throw new TransportTimeoutException($"the redis-server of {_peer} did not take the request within {timeout.TotalMilliseconds:0} ms");
        }
        catch (TimeoutException)
        {
            throw TransportErrors.NoReply(_peer, timeout);
        }
        catch (RedisException e)
        {
            pending.Abandon();
            throw new TransportException(_lost ?? $"connection to {_peer} failed: {e.Message}", e);
        }
        catch
        {
            pending.Abandon(); // a cancelled wait: a reply coming later must not be written into the caller's buffer
            throw;
        }
        finally
        {
            _pending.TryRemove(id, out _);
            if (published)
            {
                ArrayPool<byte>.Shared.Return(message);
            }
        }
    }

    private void OnReply(RedisChannel channel, RedisValue value)
    {
        ReadOnlyMemory<byte> message = value;
        if (message.Length < RedisMessages.IdLength)
        {
            Log.Warn($"redis client: dropped a reply of {message.Length} B, shorter than its id");
            return;
        }
        long id = BinaryPrimitives.ReadInt64LittleEndian(message.Span);
        if (_pending.TryRemove(id, out var pending))
        {
            pending.Complete(message.Span[RedisMessages.IdLength..]);
        }
    }

    private void OnConnectionFailed(object? sender, ConnectionFailedEventArgs e)
    {
        _lost ??= $"lost the connection to the redis-server of {_peer}: {e.FailureType}";
        foreach (var pending in _pending.Values)
        {
            pending.Fail(new TransportException(_lost));
        }
    }

    public async ValueTask DisposeAsync()
    {
        _redis.ConnectionFailed -= OnConnectionFailed;
        await RedisTransport.CloseAsync(_redis).ConfigureAwait(false); // the reply channel goes with the connection
    }

    /// <summary>One request's wait: completed by its reply, unless the request gave up first (then the reply is dropped).</summary>
    private sealed class PendingReply(Memory<byte> reply)
    {
        private readonly Lock _gate = new();
        private bool _settled;

        public TaskCompletionSource<int> Done { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public void Complete(ReadOnlySpan<byte> answer)
        {
            lock (_gate)
            {
                if (_settled)
                {
                    return;
                }
                _settled = true;
                if (answer.Length > reply.Length)
                {
                    Done.SetException(new FrameTooLargeException(answer.Length, reply.Length));
                    return;
                }
                answer.CopyTo(reply.Span);
                Done.SetResult(answer.Length);
            }
        }

        public void Fail(Exception error)
        {
            lock (_gate)
            {
                if (!_settled)
                {
                    _settled = true;
                    Done.SetException(error);
                }
            }
        }

        /// <summary>True when the request gave up before its reply came; false when the reply is already settled.</summary>
        public bool Abandon()
        {
            lock (_gate)
            {
                bool waiting = !_settled;
                _settled = true;
                return waiting;
            }
        }
    }
}
