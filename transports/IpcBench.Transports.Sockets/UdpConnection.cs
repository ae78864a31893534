using System.Net.Sockets;
using System.Runtime.CompilerServices;
using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Kit;

namespace IpcBench.Transports.Sockets;

/// <summary>A connected UDP socket: send one sequenced datagram, wait for the datagram that answers it.</summary>
internal sealed class UdpConnection : IConnection
{
    private readonly Socket _socket;
    private readonly string _peer;
    private readonly EndpointOptions _options;
    private readonly byte[] _send = new byte[Datagram.MaxSize];
    private readonly byte[] _receive = new byte[Datagram.MaxSize];
    private readonly RequestTimeout _timeout = new();
    private TimeSpan _replyTimeout;
    private uint _sequence;

    public UdpConnection(Socket socket, Uri peer, EndpointOptions options)
    {
        _socket = socket;
        _peer = peer.ToString();
        _options = options;
        SetReplyTimeout(options.RequestTimeout);
    }

    /// <summary>Sends an empty request and waits, up to the connect timeout, for its echo.</summary>
    internal async ValueTask ProbeAsync(CancellationToken ct)
    {
        SetReplyTimeout(_options.ConnectTimeout);
        await RequestAsync(ReadOnlyMemory<byte>.Empty, Memory<byte>.Empty, ct).ConfigureAwait(false);
        SetReplyTimeout(_options.RequestTimeout);
    }

    private void SetReplyTimeout(TimeSpan timeout)
    {
        _replyTimeout = timeout;
        _socket.ReceiveTimeout = Quantities.WholeMilliseconds(timeout); // for blocking receives
    }

    public ValueTask<int> RequestAsync(ReadOnlyMemory<byte> request, Memory<byte> reply, CancellationToken ct = default)
    {
        int length = Prepare(request.Span);
        if (_options.Io == IoMode.Async)
        {
            return RequestCoreAsync(length, reply, ct);
        }
        try
        {
            _socket.Send(_send.AsSpan(0, length));
            while (true)
            {
                int received = _socket.Receive(_receive);
                if (Accept(received, reply.Span) is int payload and >= 0)
                {
                    return new ValueTask<int>(payload);
                }
            }
        }
        catch (SocketException e)
        {
            throw TransportErrors.Translate(e, _peer, _replyTimeout);
        }
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<int> RequestCoreAsync(int length, Memory<byte> reply, CancellationToken ct)
    {
        var token = _timeout.Start(_replyTimeout, ct);
        try
        {
            await _socket.SendAsync(_send.AsMemory(0, length), SocketFlags.None, token).ConfigureAwait(false);
            while (true)
            {
                int received = await _socket.ReceiveAsync(_receive.AsMemory(), SocketFlags.None, token).ConfigureAwait(false);
                if (Accept(received, reply.Span) is int payload and >= 0)
                {
                    return payload;
                }
            }
        }
        catch (Exception e) when (e is SocketException or OperationCanceledException && !ct.IsCancellationRequested)
        {
            throw TransportErrors.Translate(e, _peer, _replyTimeout);
        }
        finally
        {
            _timeout.Stop();
        }
    }

    /// <summary>Writes the next request datagram into the send buffer and returns its length.</summary>
    private int Prepare(ReadOnlySpan<byte> request)
    {
        FrameTooLargeException.ThrowIfTooLarge(request.Length, UdpTransport.MaxPayload);
        Datagram.WriteSequence(_send, ++_sequence);
        request.CopyTo(_send.AsSpan(Datagram.HeaderSize));
        return Datagram.HeaderSize + request.Length;
    }

    /// <summary>Copies the reply out if the datagram answers the current request; -1 for a stale one.</summary>
    private int Accept(int received, Span<byte> reply)
    {
        if (received < Datagram.HeaderSize || Datagram.Sequence(_receive) != _sequence)
        {
            return -1; // the late answer to a request that already timed out
        }
        var payload = _receive.AsSpan(Datagram.HeaderSize, received - Datagram.HeaderSize);
        return FrameTooLargeException.CopyReply(payload, reply);
    }

    public ValueTask DisposeAsync()
    {
        _socket.Dispose();
        _timeout.Dispose();
        return ValueTask.CompletedTask;
    }
}
