using System.Diagnostics;
using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Kit;

namespace IpcBench.Transports.ZeroMQ;

/// <summary>
/// A ZeroMQ REQ socket: send the request frame, receive the reply frame, blocking with libzmq's own
/// timeouts. REQ_RELAXED and REQ_CORRELATE let a request follow one that timed out, with any late
/// reply to the old one dropped by libzmq. Allocates nothing per request.
/// </summary>
internal sealed unsafe class LibZmqConnection : IProbedConnection
{
    private readonly ZmqSocketHandle _socket;
    private readonly string _peer;
    private TimeSpan _timeout;
    private bool _disposed;

    private readonly int _maxMessage;

    public LibZmqConnection(ZmqSocketHandle socket, Uri peer, int maxMessage)
    {
        _maxMessage = maxMessage;
        _socket = socket;
        _peer = peer.ToString();
    }

    public TimeSpan ReplyTimeout
    {
        set
        {
            LibZmq.SetInt(_socket, LibZmq.RcvTimeo, Quantities.WholeMilliseconds(value));
            _timeout = value;
        }
    }

    public ValueTask<int> RequestAsync(ReadOnlyMemory<byte> request, Memory<byte> reply, CancellationToken ct = default)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        FrameTooLargeException.ThrowIfTooLarge(request.Length, _maxMessage); // the server would drop us for it
        long started = Stopwatch.GetTimestamp();
        fixed (byte* r = request.Span)
        {
            while (LibZmq.Send(_socket, r, (nuint)request.Length, 0) < 0)
            {
                if (!LibZmq.Interrupted)
                {
                    throw Failure("send");
                }
                if (Stopwatch.GetElapsedTime(started) >= _timeout)
                {
                    throw TransportErrors.NoReply(_peer, _timeout);
                }
                // An interrupted send sent nothing: it is tried again.
            }
        }
        LibZmq.Message message;
        LibZmq.MessageInit(&message);
        try
        {
            int length = Receive(&message, started);
            var answer = new ReadOnlySpan<byte>(LibZmq.MessageData(&message), length);
            return new ValueTask<int>(FrameTooLargeException.CopyReply(answer, reply.Span));
        }
        finally
        {
            LibZmq.MessageClose(&message);
        }
    }

    /// <summary>Receives the reply, resuming the wait with what is left of the timeout when a signal interrupts it.</summary>
    private int Receive(LibZmq.Message* message, long started)
    {
        int length;
        bool shortened = false;
        TransportException? failed = null;
        try
        {
            while ((length = LibZmq.MessageReceive(message, _socket, 0)) < 0 && LibZmq.Interrupted)
            {
                var left = _timeout - Stopwatch.GetElapsedTime(started);
                if (left <= TimeSpan.Zero)
                {
                    throw TransportErrors.NoReply(_peer, _timeout);
                }
                LibZmq.SetInt(_socket, LibZmq.RcvTimeo, Quantities.WholeMilliseconds(left));
                shortened = true;
            }
            // Read now: the timeout's restoring below is another call into libzmq, and errno is then its, not the receive's
            // (a receive that timed out after a signal read as "Invalid argument", not as no reply).
            failed = length < 0 ? Failure("receive") : null;
        }
        finally
        {
            if (shortened)
            {
                LibZmq.SetInt(_socket, LibZmq.RcvTimeo, Quantities.WholeMilliseconds(_timeout));
            }
        }
        return failed is null ? length : throw failed;
    }

    private TransportException Failure(string what)
    {
        string error = LibZmq.LastError(out int errno);
        return errno == LibZmq.EAgain
            ? TransportErrors.NoReply(_peer, _timeout)
            : new TransportException($"{what} to {_peer} failed: {error}");
    }

    public ValueTask DisposeAsync()
    {
        if (!_disposed)
        {
            _disposed = true;
            _socket.Dispose(); // linger 0: nothing queued keeps the context, which terminates with it
        }
        return ValueTask.CompletedTask;
    }
}
