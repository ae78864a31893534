using Grpc.Net.Client;
using IpcBench.Core.Contract;
using IpcBench.Core.Contract.Options;
using IpcBench.Core.Kit;
using IpcBench.Core.Kit.Security;
using IpcBench.Transports.Kestrel;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.DependencyInjection;

namespace IpcBench.Transports.Grpc;

/// <summary>
/// gRPC on grpc-dotnet (Protos/echo.proto): Grpc.AspNetCore on Kestrel serving, a GrpcChannel and the generated client
/// calling, over HTTP/2. Each variant is a descriptor: a name, where it listens (<see cref="KestrelEndpoint"/>) and
/// how a connection calls. <c>grpc-uds</c> and <c>grpc-pipe</c> are what "gRPC over pipes" is on each OS (Kestrel's
/// ListenUnixSocket / ListenNamedPipe and a SocketsHttpHandler ConnectCallback, as Microsoft's inter-process gRPC
/// articles show).
/// </summary>
public sealed class GrpcTransport : KestrelTransport
{
    /// <summary>The largest payload: gRPC's customary default message limit.</summary>
    private const int MaxPayload = 4 * 1024 * 1024;

    /// <summary>The largest encoded message: the payload behind its field tag and length (at most 6 bytes).</summary>
    private const int MaxMessage = MaxPayload + 16;

    public static GrpcTransport Tcp { get; } = new("grpc", KestrelEndpoint.Tcp,
        "grpc-dotnet unary calls (HTTP/2 h2c) over TCP: Grpc.AspNetCore on Kestrel + GrpcChannel");

    public static GrpcTransport UnixSocket { get; } = new("grpc-uds", KestrelEndpoint.UnixSocket,
        "grpc-dotnet unary calls (HTTP/2 h2c) over a Unix domain socket: Kestrel ListenUnixSocket + GrpcChannel ConnectCallback");

    public static GrpcTransport NamedPipe { get; } = new("grpc-pipe", KestrelEndpoint.NamedPipe,
        "grpc-dotnet unary calls (HTTP/2 h2c) over a named pipe: Kestrel ListenNamedPipe + GrpcChannel ConnectCallback (not yet run on Windows)");

    /// <summary>One bidirectional stream held open, a message each way per request.</summary>
    public static GrpcTransport Stream { get; } = new("grpc-stream", KestrelEndpoint.Tcp,
        "grpc-dotnet bidirectional stream held open (HTTP/2 h2c) over TCP, a message each way per request: Grpc.AspNetCore + GrpcChannel",
        streamed: true);

    public static GrpcTransport Tls { get; } = new("grpc-tls", KestrelEndpoint.Tls,
        "grpc-dotnet unary calls over HTTPS (HTTP/2, TLS 1.3) on TCP, a self-signed certificate made by the server and pinned by the client");

    private readonly bool _streamed;

    private GrpcTransport(string name, KestrelEndpoint endpoint, string description, bool streamed = false) : base(name, endpoint)
    {
        Description = description;
        _streamed = streamed;
    }

    public override string Description { get; }

    /// <summary>Unary calls are pipelined: HTTP/2 carries concurrent calls on one channel, each its own stream.</summary>
    public override TransportCapabilities Capabilities => new(Features | (_streamed ? 0 : TransportFeatures.Pipelined), MaxPayload);

    protected override HttpProtocols Protocols => HttpProtocols.Http2;

    protected override void AddServices(IServiceCollection services, RequestHandler handler)
    {
        services.AddSingleton(handler);
        services.AddGrpc(o => o.MaxReceiveMessageSize = o.MaxSendMessageSize = MaxMessage);
    }

    protected override void Map(WebApplication app, RequestHandler handler) => app.MapGrpcService<EchoService>();

    public override async ValueTask<IConnection> ConnectAsync(Uri address, CancellationToken ct = default)
    {
        var options = EndpointOptions.Parse(address, this);
        var peer = AddressQuery.WithoutQuery(address);
        var channel = OpenChannel(address, options.ConnectTimeout);
        IProbedConnection connection = _streamed
            ? new GrpcStreamConnection(channel, peer.ToString(), MaxPayload)
            : new GrpcUnaryConnection(channel, peer.ToString(), MaxPayload);
        // HTTP/2 connects on the first call (and GrpcChannel.ConnectAsync refuses a ConnectCallback): one call shows a server is there.
        await ConnectProbe.ProbeAsync(connection, peer, options.ConnectTimeout, options.RequestTimeout, ct).ConfigureAwait(false);
        return connection;
    }

    /// <summary>A channel of its own for each connection (so one HTTP/2 connection), on a SocketsHttpHandler the endpoint sets up.</summary>
    private GrpcChannel OpenChannel(Uri address, TimeSpan connectTimeout)
    {
        var handler = new SocketsHttpHandler { ConnectTimeout = connectTimeout, EnableMultipleHttp2Connections = true };
        string target = Endpoint.ConfigureClient(handler, address, this);
        return GrpcChannel.ForAddress(target, new GrpcChannelOptions
        {
            HttpHandler = handler,
            DisposeHttpClient = true,
            MaxReceiveMessageSize = MaxMessage,
            MaxSendMessageSize = MaxMessage,
            ThrowOperationCanceledOnCancellation = true,
        });
    }
}
