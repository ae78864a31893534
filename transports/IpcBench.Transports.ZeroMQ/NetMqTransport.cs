using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Kit;
using IpcBench.Kit.Framing;
using NetMQ;
using NetMQ.Sockets;

namespace IpcBench.Transports.ZeroMQ;

/// <summary>
/// <c>zmq</c>: ZeroMQ request/reply (REQ/REP) over TCP through NetMQ, the managed ZeroMQ engine .NET
/// applications use: a ResponseSocket serving, a RequestSocket calling, each blocking on its own thread
/// with a reused <c>Msg</c>, the lowest-latency way NetMQ offers. Each message crosses NetMQ's I/O thread
/// on each side. It speaks ZMTP 3.0, so any ZeroMQ REQ client can call the server.
/// </summary>
public sealed class NetMqTransport : ITransport
{
    public TransportFamily Family => TransportFamily.Messaging;

    public string Name => "zmq";

    public string Description => "ZeroMQ REQ/REP over TCP through NetMQ, the managed engine (each side adds NetMQ's I/O thread)";

    public string? UnsupportedReason => null;

    public TransportCapabilities Capabilities =>
        new(TransportFeatures.Reliable | TransportFeatures.MessageBoundaries | TransportFeatures.CrossHost, LengthPrefix.DefaultMaxPayload);

    /// <summary>NetMQ's calls block on the calling thread: there is no I/O mode to vary.</summary>
    public IReadOnlyList<TransportOption> Options => [];

    public Uri DefaultAddress() => new($"{Name}://127.0.0.1:0");

    public ValueTask<IServer> StartServerAsync(Uri address, RequestHandler handler, CancellationToken ct = default)
    {
        EndpointOptions.Parse(address, this); // the common options are checked here too
        string endpoint = ZmqEndpoint.Tcp(address, bind: true);
        var socket = NetMqRuntime.Open(() => new ResponseSocket());
        try
        {
            socket.Options.MaxMsgSize = Capabilities.MaxMessageSize; // a peer that sends more is dropped
            socket.Bind(endpoint);
            return ValueTask.FromResult<IServer>(new NetMqServer(socket, ZmqEndpoint.Bound(Name, socket.Options.LastEndpoint!), handler));
        }
        catch (Exception e)
        {
            NetMqRuntime.Close(socket);
            throw e is NetMQException ? new TransportException($"cannot listen on {endpoint}: {e.Message}", e) : e;
        }
    }

    public async ValueTask<IConnection> ConnectAsync(Uri address, CancellationToken ct = default)
    {
        var options = EndpointOptions.Parse(address, this);
        var peer = AddressQuery.WithoutQuery(address);
        string endpoint = ZmqEndpoint.Tcp(address, bind: false);
        var socket = NetMqRuntime.Open(() => new RequestSocket());
        NetMqConnection connection;
        try
        {
            // A request may follow one that timed out; a late reply to the old one is dropped.
            socket.Options.Relaxed = true;
            socket.Options.Correlate = true;
            socket.Connect(endpoint);
            connection = new NetMqConnection(socket, peer, Capabilities.MaxMessageSize);
        }
        catch (Exception e)
        {
            NetMqRuntime.Close(socket);
            throw e is NetMQException ? new TransportException($"could not connect to {peer}: {e.Message}", e) : e;
        }
        await ConnectProbe.ProbeAsync(connection, peer, options.ConnectTimeout, options.RequestTimeout, ct).ConfigureAwait(false); // ZeroMQ never says "refused"
        return connection;
    }
}
