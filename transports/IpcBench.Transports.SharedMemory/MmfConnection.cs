using System.Diagnostics;
using IpcBench.Contract;
using IpcBench.Kit;

namespace IpcBench.Transports.SharedMemory;

/// <summary>
/// The client side: holds the channel's claim, writes a request into the request area, publishes its
/// sequence number and waits for the reply with the same number. Allocates nothing per request.
/// </summary>
internal sealed class MmfConnection : IConnection, IPeer
{
    private readonly SharedChannel _channel;
    private readonly string _peer;
    private readonly WaitMode _wait;
    private readonly long _timeoutTicks;
    private readonly TimeSpan _timeout;
    private readonly int _serverPid;
    private bool _broken;
    private bool _disposed;

    private MmfConnection(SharedChannel channel, Uri peer, WaitMode wait, TimeSpan timeout)
    {
        _channel = channel;
        _peer = peer.ToString();
        _wait = wait;
        _timeout = timeout;
        _timeoutTicks = StopwatchTicks.From(timeout);
        _serverPid = channel.ServerPid;
    }

    /// <summary>Claims <paramref name="channel"/> and returns a connection over it; null when another client holds it.</summary>
    public static MmfConnection? Attach(SharedChannel channel, Uri peer, WaitMode wait, TimeSpan requestTimeout, TimeSpan connectTimeout)
    {
        var connection = new MmfConnection(channel, peer, wait, requestTimeout);
        connection.ThrowIfGoneCore();
        if (channel.TryClaim() != 0)
        {
            return null;
        }
        try
        {
            // A request that a previous client left unanswered must be answered first: the server
            // would otherwise still be reading the request area when this client writes into it.
            long deadline = StopwatchTicks.FromNow(connectTimeout);
            int pending = channel.Requests.Sequence;
            for (int reply = channel.Replies.Sequence; reply != pending;)
            {
                reply = channel.Replies.WaitForChange(reply, WaitMode.Block, deadline, connection);
            }
            channel.Attach.Publish(channel.Attach.Sequence + 1);
            return connection;
        }
        catch
        {
            channel.Release();
            throw;
        }
    }

    public ValueTask<int> RequestAsync(ReadOnlyMemory<byte> request, Memory<byte> reply, CancellationToken ct = default)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        if (_broken)
        {
            // The server may still be reading the request that timed out: writing the next one over it would corrupt both.
            throw new TransportException($"{_peer}: the connection is unusable after a timeout; connect again");
        }
        var payload = request.Span;
        if (payload.Length > _channel.Capacity)
        {
            throw new FrameTooLargeException(payload.Length, _channel.Capacity, "raise the channel's capacity: mmf://...?capacity=");
        }
        payload.CopyTo(_channel.RequestArea);
        _channel.Requests.Length = payload.Length;
        int sequence = _channel.Requests.Sequence + 1;
        int seen = _channel.Replies.Sequence;
        _channel.Requests.Publish(sequence);

        long deadline = Stopwatch.GetTimestamp() + _timeoutTicks;
        while (seen != sequence)
        {
            seen = _channel.Replies.WaitForChange(seen, _wait, deadline, this);
        }
        int length = _channel.Replies.Length;
        if ((uint)length > (uint)reply.Length)
        {
            throw new FrameTooLargeException(length, reply.Length);
        }
        _channel.ReplyArea[..length].CopyTo(reply.Span);
        return new ValueTask<int>(length);
    }

    void IPeer.ThrowIfGone() => ThrowIfGoneCore();

    private void ThrowIfGoneCore()
    {
        if (_channel.State == SharedChannel.StateStopped)
        {
            throw new TransportException($"{_peer}: the server stopped");
        }
        if (!Kit.Processes.ProcessLiveness.IsAlive(_serverPid))
        {
            throw new TransportException($"{_peer}: the server process {_serverPid} is gone");
        }
    }

    TransportTimeoutException IPeer.TimedOut()
    {
        _broken = true;
        return TransportErrors.NoReply(_peer, _timeout);
    }

    public ValueTask DisposeAsync()
    {
        if (_disposed)
        {
            return ValueTask.CompletedTask;
        }
        _disposed = true;
        _channel.Release();
        _channel.Attach.Publish(_channel.Attach.Sequence + 1);
        _channel.Requests.Poke(); // a server waiting for our next request notices the detach at once
        _channel.Dispose();
        return ValueTask.CompletedTask;
    }
}
