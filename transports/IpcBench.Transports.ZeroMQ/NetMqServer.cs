using IpcBench.Contract;
using IpcBench.Kit;
using NetMQ;
using NetMQ.Sockets;

namespace IpcBench.Transports.ZeroMQ;

/// <summary>
/// A NetMQ ResponseSocket that answers each request with the handler's reply, on a dedicated thread that
/// owns the socket (NetMQ sockets are not thread-safe). The thread waits in bounded receives so that it
/// sees a stop request; a message wakes it at once.
/// </summary>
internal sealed class NetMqServer : IServer
{
    private static readonly TimeSpan StopCheck = TimeSpan.FromMilliseconds(100);
    private static readonly TimeSpan SendTimeout = TimeSpan.FromSeconds(5);

    private readonly ResponseSocket _socket;
    private readonly RequestHandler _handler;
    private readonly Thread _thread;
    private volatile bool _stopping;

    public NetMqServer(ResponseSocket socket, Uri address, RequestHandler handler)
    {
        _socket = socket;
        _handler = handler;
        Address = address;
        _thread = new Thread(Serve) { IsBackground = true, Name = "ipcbench netmq" };
        _thread.Start();
    }

    public Uri Address { get; }

    private void Serve()
    {
        byte[] answer = new byte[1024];
        var request = new Msg();
        request.InitEmpty();
        try
        {
            while (!_stopping)
            {
                if (!_socket.TryReceive(ref request, StopCheck))
                {
                    continue;
                }
                if (request.HasMore)
                {
                    // Not a request of IpcBench's (one frame each): drained, and answered empty, since a REP socket
                    // receives nothing more until it has answered (NetMQ throws at the next send or receive otherwise).
                    int frames = 1;
                    for (; request.HasMore && _socket.TryReceive(ref request, SendTimeout); frames++)
                    {
                    }
                    Log.Warn($"zmq server {Address}: dropped a request of {frames} frames (a request is one frame)");
                    request.Close();
                    request.InitEmpty();
                    Reply(answer, 0);
                    continue;
                }
                var payload = request.Slice();
                if (answer.Length < _handler.ReplyCapacity(payload.Length))
                {
                    answer = new byte[Math.Max(_handler.ReplyCapacity(payload.Length), 2 * answer.Length)]; // bounded by MaxMsgSize
                }
                int length = _handler.Handle(payload, answer);
                request.Close();
                request.InitEmpty();
                Reply(answer, length);
            }
        }
        finally
        {
            request.Close();
            NetMqRuntime.Close(_socket); // the owning thread closes it
        }
    }

    private void Reply(byte[] answer, int length)
    {
        var reply = new Msg();
        reply.InitPool(length);
        answer.AsSpan(0, length).CopyTo(reply.Slice());
        if (!_socket.TrySend(ref reply, SendTimeout, more: false))
        {
            Log.Warn($"zmq server {Address}: the reply could not be queued within {SendTimeout.TotalSeconds:0} s");
        }
        reply.Close();
    }

    public ValueTask DisposeAsync()
    {
        if (!_stopping)
        {
            _stopping = true;
            if (!_thread.Join(IServer.StopTimeout))
            {
                Log.Warn($"zmq server {Address}: its thread did not stop within {IServer.StopTimeout.TotalSeconds:0} s");
            }
        }
        return ValueTask.CompletedTask;
    }
}
