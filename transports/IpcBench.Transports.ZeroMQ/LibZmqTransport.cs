using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Kit;
using IpcBench.Kit.Framing;

namespace IpcBench.Transports.ZeroMQ;

/// <summary>
/// <c>zmq-libzmq</c>: ZeroMQ request/reply (REQ/REP) over TCP through libzmq, the native engine, bound
/// directly. Every message crosses libzmq's I/O thread on each side, which is the cost this transport
/// shows next to plain <c>tcp</c>; beside <c>zmq</c> (NetMQ) it shows the native engine against the managed one.
/// </summary>
public sealed class LibZmqTransport : ITransport
{
    public TransportFamily Family => TransportFamily.Messaging;

    public string Name => "zmq-libzmq";

    public string Description => "ZeroMQ REQ/REP over TCP through libzmq, the native engine, called directly (each side adds libzmq's I/O thread)";

    public string? UnsupportedReason => LibZmq.Unavailable;

    public TransportCapabilities Capabilities =>
        new(TransportFeatures.Reliable | TransportFeatures.MessageBoundaries | TransportFeatures.CrossHost, LengthPrefix.DefaultMaxPayload);

    /// <summary>libzmq calls block on the calling thread: there is no I/O mode to vary.</summary>
    public IReadOnlyList<TransportOption> Options => [];

    public Uri DefaultAddress() => new($"{Name}://127.0.0.1:0");

    public ValueTask<IServer> StartServerAsync(Uri address, RequestHandler handler, CancellationToken ct = default)
    {
        CheckOptions(address);
        var (context, socket) = Open(LibZmq.Rep);
        try
        {
            LibZmq.SetLong(socket, LibZmq.MaxMsgSize, Capabilities.MaxMessageSize); // a peer that sends more is dropped
            string endpoint = ZmqEndpoint.Tcp(address, bind: true);
            if (LibZmq.Bind(socket, endpoint) < 0)
            {
                throw new TransportException($"cannot listen on {endpoint}: {LibZmq.LastError(out _)}");
            }
            // "tcp://127.0.0.1:41235" once bound: the real port for a requested port 0.
            var bound = ZmqEndpoint.Bound(Name, LibZmq.GetString(socket, LibZmq.LastEndpoint));
            return ValueTask.FromResult<IServer>(new LibZmqServer(context, socket, bound, handler));
        }
        catch
        {
            Close(context, socket);
            throw;
        }
    }

    public async ValueTask<IConnection> ConnectAsync(Uri address, CancellationToken ct = default)
    {
        var options = CheckOptions(address);
        var peer = AddressQuery.WithoutQuery(address);
        var (context, socket) = Open(LibZmq.Req);
        LibZmqConnection connection;
        try
        {
            LibZmq.SetInt(socket, LibZmq.ReqRelaxed, 1);
            LibZmq.SetInt(socket, LibZmq.ReqCorrelate, 1);
            LibZmq.SetInt(socket, LibZmq.SndTimeo, Quantities.WholeMilliseconds(options.RequestTimeout));
            if (LibZmq.Connect(socket, ZmqEndpoint.Tcp(address, bind: false)) < 0)
            {
                throw new TransportException($"could not connect to {peer}: {LibZmq.LastError(out _)}");
            }
            connection = new LibZmqConnection(socket, peer, Capabilities.MaxMessageSize);
            context.Dispose(); // the socket holds it until it closes
        }
        catch
        {
            Close(context, socket);
            throw;
        }
        await ConnectProbe.ProbeAsync(connection, peer, options.ConnectTimeout, options.RequestTimeout, ct).ConfigureAwait(false); // ZeroMQ never says "refused"
        return connection;
    }

    private EndpointOptions CheckOptions(Uri address)
    {
        if (UnsupportedReason is { } reason)
        {
            throw new TransportException($"{Name} does not run here: {reason}");
        }
        // io does not apply: libzmq calls block on the calling thread whatever it says.
        return EndpointOptions.Parse(address, this);
    }

    /// <summary>A socket of <paramref name="type"/> in a context of its own; the socket holds the context (see <see cref="ZmqSocketHandle"/>).</summary>
    private static (ZmqContextHandle Context, ZmqSocketHandle Socket) Open(int type)
    {
        var context = LibZmq.ContextNew();
        if (context.IsInvalid)
        {
            throw new TransportException($"zmq_ctx_new failed: {LibZmq.LastError(out _)}");
        }
        var socket = LibZmq.Socket(context, type);
        if (socket.IsInvalid)
        {
            string error = LibZmq.LastError(out _);
            context.Dispose();
            throw new TransportException($"zmq_socket failed: {error}");
        }
        socket.HoldContext(context);
        LibZmq.SetInt(socket, LibZmq.Linger, 0); // closing never waits for unsent messages
        return (context, socket);
    }

    private static void Close(ZmqContextHandle context, ZmqSocketHandle socket)
    {
        socket.Dispose();
        context.Dispose();
    }
}
