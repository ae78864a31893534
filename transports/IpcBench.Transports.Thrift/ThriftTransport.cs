using System.IO.Pipes;
using System.Net;
using System.Net.Sockets;
using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Kit;
using IpcBench.Kit.Streams;
using IpcBench.Transports.Pipes;
using IpcBench.Transports.Thrift.Generated;
using Thrift;
using Thrift.Protocol;
using Thrift.Transport;
using Thrift.Transport.Client;
using Thrift.Transport.Server;
using IConnection = IpcBench.Contract.IConnection;

namespace IpcBench.Transports.Thrift;

/// <summary>
/// Apache Thrift as its .NET users run it: a service compiled from an IDL (<c>echo.thrift</c>, one method
/// <c>binary Echo(1: binary payload)</c>), its generated client and processor, TFramedTransport under TBinaryProtocol
/// (or TCompactProtocol), served by <see cref="ThriftServer"/>. <c>thrift</c> runs over Thrift's socket transport (TCP,
/// Nagle off, as TSocketTransport sets it), <c>thrift-pipe</c> over Thrift's named-pipe transport (on Linux and macOS
/// .NET makes a named pipe a Unix domain socket). Every setting is Thrift's default; what its users tune is the protocol
/// (the <c>protocol</c> option), the transport layer (framed or buffered) and the server's thread pool.
/// </summary>
public sealed class ThriftTransport : ITransport
{
    public static ThriftTransport Socket { get; } = new(pipe: false);

    public static ThriftTransport NamedPipe { get; } = new(pipe: true);

    /// <summary>
    /// The largest payload: a frame may hold Thrift's default <see cref="TConfiguration.MaxFrameSize"/>, of which the
    /// message's envelope (its name, sequence id and field headers) takes a few dozen bytes.
    /// </summary>
    public const int MaxPayload = TConfiguration.DEFAULT_MAX_FRAME_SIZE - 256;

    internal static readonly TransportOption Protocol = TransportOption.Choice("protocol",
        "Thrift's encoding: binary (TBinaryProtocol, what most Thrift services speak) or compact (TCompactProtocol, varints)",
        "binary", OptionScope.BothEnds, "binary", "compact") with { Compared = ["binary", "compact"] };

    private readonly bool _pipe;

    private ThriftTransport(bool pipe) => _pipe = pipe;

    public string Name => _pipe ? "thrift-pipe" : "thrift";

    public string Description => _pipe
        ? OperatingSystem.IsWindows()
            ? "Apache Thrift over its named-pipe transport, framed, a generated service (protocol=binary|compact)"
            : "Apache Thrift over its named-pipe transport (a Unix domain socket here), framed, a generated service (protocol=binary|compact)"
        : "Apache Thrift over its socket transport (TCP), framed, a generated service (protocol=binary|compact)";

    public TransportFamily Family => TransportFamily.Rpc;

    public string? UnsupportedReason => null;

    public TransportCapabilities Capabilities => new(
        TransportFeatures.Reliable | TransportFeatures.MessageBoundaries | (_pipe ? TransportFeatures.None : TransportFeatures.CrossHost), MaxPayload);

    public IReadOnlyList<TransportOption> Options => [Protocol];

    public Uri DefaultAddress() => new(_pipe ? $"{Name}://{PipeEndpoint.AutoName}" : $"{Name}://127.0.0.1:0");

    public async ValueTask<IServer> StartServerAsync(Uri address, RequestHandler handler, CancellationToken ct = default)
    {
        var values = OptionValues.Parse(address, this);
        var processor = new EchoService.AsyncProcessor(new EchoHandler(handler));
        if (_pipe)
        {
            string name = await PipeEndpoint.ClaimNameAsync(address, ct).ConfigureAwait(false);
            var server = new ThriftServer(new TNamedPipeServerTransport(name, new TConfiguration(), NamedPipeServerFlags.None, 1), new Uri($"{Name}://{name}"), processor, Factory(values),
                keeper: OperatingSystem.IsWindows() ? null : KeepListening(name));
            await AwaitPipeAsync(server, name, EndpointOptions.From(values).ConnectTimeout, ct).ConfigureAwait(false);
            return server;
        }
        var listener = new TcpListener(await Endpoints.ResolveAsync(address, ct).ConfigureAwait(false));
        try
        {
            listener.Start(AcceptLoop.Backlog); // before the server's own Start, which then finds it listening: bound when this returns
        }
        catch (SocketException e)
        {
            listener.Dispose();
            throw new TransportException($"cannot listen on {listener.LocalEndpoint}: {e.Message}", e);
        }
        var bound = Endpoints.ToUri(Name, (IPEndPoint)listener.LocalEndpoint);
        return new ThriftServer(new ProbingServerSocket(listener), bound, processor, Factory(values));
    }

    /// <summary>
    /// On Unix .NET makes a pipe name one listening socket, shared by the name's server instances and closed (its file
    /// removed) with the last of them. Thrift's server makes the next instance only when its accept loop comes round
    /// again: a connection that ended before that took the listener with it, and reset the next client's connection
    /// waiting in its backlog (the conformance suite's connect cycles, on a loaded machine). An instance that never
    /// accepts holds the listener for the server's life; on Unix only an instance waiting to accept takes a client
    /// (on Windows every instance would; there a client that finds no instance waiting retries within its connect timeout).
    /// </summary>
    private static NamedPipeServerStream KeepListening(string name) => new(name, PipeDirection.InOut,
        NamedPipeServerStream.MaxAllowedServerInstances, PipeTransmissionMode.Byte, PipeOptions.Asynchronous);

    /// <summary>
    /// Thrift's pipe server makes its pipe when its accept loop first runs: a connection made and closed shows it is there
    /// (the server reads the end of it and goes on). On Unix the kept instance makes the name at once, and the probe waits
    /// in its backlog until the accept loop takes it.
    /// </summary>
    private static async Task AwaitPipeAsync(ThriftServer server, string name, TimeSpan bound, CancellationToken ct)
    {
        try
        {
            await using var probe = new NamedPipeClientStream(".", name, PipeDirection.InOut, PipeOptions.Asynchronous);
            await probe.ConnectAsync(bound, ct).ConfigureAwait(false);
        }
        catch (Exception e)
        {
            await server.DisposeAsync().ConfigureAwait(false);
            if (e is TimeoutException or IOException)
            {
                throw new TransportException($"thrift server on pipe {name}: its pipe was not there within {bound.TotalSeconds:0} s", e);
            }
            throw;
        }
    }

    public async ValueTask<IConnection> ConnectAsync(Uri address, CancellationToken ct = default)
    {
        var values = OptionValues.Parse(address, this);
        var options = EndpointOptions.From(values);
        var peer = AddressQuery.WithoutQuery(address);
        TTransport endpoint = _pipe
            ? new TNamedPipeTransport(PipeEndpoint.ServedName(address), new TConfiguration(), (int)options.ConnectTimeout.TotalMilliseconds)
            : await SocketAsync(address, ct).ConfigureAwait(false);
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(ct);
        timeout.CancelAfter(options.ConnectTimeout);
        try
        {
            // TSocketTransport's connect takes no token: the wait is bounded here, and the transport disposed on expiry.
            await endpoint.OpenAsync(timeout.Token).WaitAsync(timeout.Token).ConfigureAwait(false);
        }
        catch (Exception e)
        {
            endpoint.Dispose();
            if ((TransportErrors.IsConnectionFailure(e) || e is TException) && !ct.IsCancellationRequested)
            {
                throw TransportErrors.ConnectFailed(e.InnerException is SocketException inner ? inner : e, peer, options.ConnectTimeout);
            }
            throw;
        }
        var client = new EchoService.Client(Factory(values).GetProtocol(new TFramedTransport(endpoint)));
        return new ThriftConnection(client, peer.ToString(), MaxPayload, options.RequestTimeout);
    }

    private static async Task<TTransport> SocketAsync(Uri address, CancellationToken ct)
    {
        var endpoint = await Endpoints.ResolveAsync(address, ct).ConfigureAwait(false);
        return new TSocketTransport(endpoint.Address, endpoint.Port, new TConfiguration());
    }

    private TProtocolFactory Factory(OptionValues values) =>
        values[Protocol] == "compact" ? new TCompactProtocol.Factory() : new TBinaryProtocol.Factory();
}
