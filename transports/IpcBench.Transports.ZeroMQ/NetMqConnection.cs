using IpcBench.Contract;
using IpcBench.Kit;
using NetMQ;
using NetMQ.Sockets;

namespace IpcBench.Transports.ZeroMQ;

/// <summary>
/// A NetMQ RequestSocket: the request copied into a message from NetMQ's buffer pool and sent, the
/// reply received into one reused <c>Msg</c>, both blocking with a timeout. NetMQ's default pool
/// allocates each message's buffer: that allocation is NetMQ's, and the benchmark reports it.
/// </summary>
internal sealed class NetMqConnection(RequestSocket socket, Uri peer, int maxMessage) : IProbedConnection
{
    private readonly string _peer = peer.ToString();
    private Msg _reply;
    private bool _disposed;

    public TimeSpan ReplyTimeout { get; set; }

    public ValueTask<int> RequestAsync(ReadOnlyMemory<byte> request, Memory<byte> reply, CancellationToken ct = default)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        FrameTooLargeException.ThrowIfTooLarge(request.Length, maxMessage); // the server would drop us for it
        var message = new Msg();
        message.InitPool(request.Length);
        request.Span.CopyTo(message.Slice());
        bool sent = socket.TrySend(ref message, ReplyTimeout, more: false);
        message.Close();
        if (!sent)
        {
            throw new TransportTimeoutException($"could not send to {_peer} within {ReplyTimeout.TotalMilliseconds:0} ms");
        }
        _reply.InitEmpty();
        try
        {
            if (!socket.TryReceive(ref _reply, ReplyTimeout))
            {
                throw TransportErrors.NoReply(_peer, ReplyTimeout);
            }
            var payload = _reply.Slice();
            return new ValueTask<int>(FrameTooLargeException.CopyReply(payload, reply.Span));
        }
        finally
        {
            _reply.Close();
        }
    }

    public ValueTask DisposeAsync()
    {
        if (!_disposed)
        {
            _disposed = true;
            NetMqRuntime.Close(socket);
        }
        return ValueTask.CompletedTask;
    }
}
