using IpcBench.Contract;
using IpcBench.Kit;

namespace IpcBench.Transports.ZeroMQ;

/// <summary>
/// A plain ZeroMQ REP socket that answers each request frame with the handler's reply, so that any
/// ZeroMQ REQ client, in any language, gets its payload back. One dedicated thread owns the socket
/// (libzmq sockets are not thread-safe); stopping shuts the context down, which ends its blocking receive.
/// </summary>
internal sealed unsafe class LibZmqServer : IServer
{
    private readonly ZmqContextHandle _context;
    private readonly ZmqSocketHandle _socket;
    private readonly RequestHandler _handler;
    private readonly Thread _thread;
    private volatile bool _stopping;

    public LibZmqServer(ZmqContextHandle context, ZmqSocketHandle socket, Uri address, RequestHandler handler)
    {
        _context = context;
        _socket = socket;
        _handler = handler;
        Address = address;
        _thread = new Thread(Serve) { IsBackground = true, Name = "ipcbench zmq" };
        _thread.Start();
    }

    public Uri Address { get; }

    private void Serve()
    {
        byte[] reply = new byte[1024];
        LibZmq.Message message;
        try
        {
            while (!_stopping)
            {
                LibZmq.MessageInit(&message);
                try
                {
                    int length = LibZmq.MessageReceive(&message, _socket, 0);
                    if (length < 0)
                    {
                        string error = LibZmq.LastError(out int errno);
                        if (errno == LibZmq.ETerm)
                        {
                            return; // the context is shutting down: we are stopping
                        }
                        if (errno == LibZmq.EIntr)
                        {
                            continue; // a signal ended the wait (LibZmq.Interrupted): nothing was received
                        }
                        Log.Warn($"zmq server {Address}: receive failed: {error}");
                        continue;
                    }
                    if (LibZmq.MessageMore(&message) != 0)
                    {
                        // Not a request of IpcBench's (one frame each): drained, and answered empty, since a REP socket
                        // receives nothing more until it has answered (it would fail every receive from then on).
                        Log.Warn($"zmq server {Address}: dropped a request of {1 + DrainFrames(&message)} frames (a request is one frame)");
                        Reply(reply, 0);
                        continue;
                    }
                    if (reply.Length < _handler.ReplyCapacity(length))
                    {
                        reply = new byte[Math.Max(_handler.ReplyCapacity(length), 2 * reply.Length)]; // bounded by ZMQ_MAXMSGSIZE
                    }
                    Reply(reply, _handler.Handle(new ReadOnlySpan<byte>(LibZmq.MessageData(&message), length), reply));
                }
                finally
                {
                    LibZmq.MessageClose(&message);
                }
            }
        }
        finally
        {
            _socket.Dispose(); // the owning thread closes it; then the context can terminate
        }
    }

    private void Reply(byte[] reply, int length)
    {
        fixed (byte* r = reply)
        {
            // A send a signal interrupted sent nothing: tried again, or the REP socket would refuse every receive after.
            while (LibZmq.Send(_socket, r, (nuint)length, 0) < 0)
            {
                if (LibZmq.Interrupted)
                {
                    continue;
                }
                if (LibZmq.LastError(out int e) is var why && e != LibZmq.ETerm)
                {
                    Log.Warn($"zmq server {Address}: send failed: {why}");
                }
                return;
            }
        }
    }

    /// <summary>Receives the rest of a message of several frames into <paramref name="message"/>; returns how many there were.</summary>
    private int DrainFrames(LibZmq.Message* message)
    {
        int frames = 0;
        while (LibZmq.MessageMore(message) != 0 && LibZmq.MessageReceive(message, _socket, 0) >= 0)
        {
            frames++;
        }
        return frames;
    }

    public ValueTask DisposeAsync()
    {
        if (_stopping)
        {
            return ValueTask.CompletedTask;
        }
        _stopping = true;
        LibZmq.ContextShutdown(_context);
        if (!_thread.Join(IServer.StopTimeout))
        {
            Log.Warn($"zmq server {Address}: its thread did not stop within {IServer.StopTimeout.TotalSeconds:0} s");
        }
        _context.Dispose(); // terminates once the socket is closed (ZmqSocketHandle holds it till then)
        return ValueTask.CompletedTask;
    }
}
