using Grpc.Net.Client;
using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Kit;
using IpcBench.Kit.Security;
using IpcBench.Transports.Kestrel;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.DependencyInjection;
using ProtoBuf.Grpc.Server;

namespace IpcBench.Transports.Grpc;

/// <summary>
/// gRPC on grpc-dotnet (Protos/echo.proto): Grpc.AspNetCore on Kestrel serving, a GrpcChannel and the generated client
/// calling, over HTTP/2. Each variant is a descriptor: a name, where it listens (<see cref="KestrelEndpoint"/>) and
/// how a connection calls. <c>grpc-uds</c> and <c>grpc-pipe</c> are what "gRPC over pipes" is on each OS (Kestrel's
/// ListenUnixSocket / ListenNamedPipe and a SocketsHttpHandler ConnectCallback, as Microsoft's inter-process gRPC
/// articles show). <c>grpc-codefirst</c> is the same unary call on the same stack with the contract written as a .NET
/// interface (protobuf-net.Grpc), the WCF-to-gRPC migration path: beside <c>grpc</c>, what the contract style costs.
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
        GrpcCall.Stream);

    public static GrpcTransport CodeFirst { get; } = new("grpc-codefirst", KestrelEndpoint.Tcp,
        "protobuf-net.Grpc code-first unary calls (HTTP/2 h2c) over TCP: a WCF-style contract interface, no .proto, on Grpc.AspNetCore + GrpcChannel",
        GrpcCall.CodeFirst);

    public static GrpcTransport Tls { get; } = new("grpc-tls", KestrelEndpoint.Tls,
        "grpc-dotnet unary calls over HTTPS (HTTP/2, TLS 1.3) on TCP, a self-signed certificate made by the server and pinned by the client");

    private readonly GrpcCall _call;

    private GrpcTransport(string name, KestrelEndpoint endpoint, string description, GrpcCall call = GrpcCall.Unary) : base(name, endpoint)
    {
        Description = description;
        _call = call;
    }

    /// <summary>How a connection calls, and what the server maps.</summary>
    private enum GrpcCall
    {
        /// <summary>echo.proto's Call through the client Grpc.Tools generates.</summary>
        Unary,
        /// <summary>echo.proto's Stream, one held open per connection.</summary>
        Stream,
        /// <summary><see cref="IEchoContract"/>'s Call through protobuf-net.Grpc's proxy.</summary>
        CodeFirst,
    }

    public override string Description { get; }

    /// <summary>Unary calls are pipelined: HTTP/2 carries concurrent calls on one channel, each its own stream.</summary>
    public override TransportCapabilities Capabilities => new(Features | (_call == GrpcCall.Stream ? 0 : TransportFeatures.Pipelined), MaxPayload);

    /// <summary>The generated client and Google.Protobuf run in a NativeAOT build; protobuf-net.Grpc's proxy does not.</summary>
    public override string? NativeAotUnsupportedReason => _call == GrpcCall.CodeFirst
        ? "protobuf-net.Grpc makes its client proxy and serializers with reflection and runtime code generation (publish warnings IL2104, IL3053 for protobuf-net.Grpc; its type initializer throws in a NativeAOT build)"
        : null;

    protected override HttpProtocols Protocols => HttpProtocols.Http2;

    protected override void AddServices(IServiceCollection services, RequestHandler handler)
    {
        services.AddSingleton(handler);
        if (_call == GrpcCall.CodeFirst)
        {
            services.AddCodeFirstGrpc(o => o.MaxReceiveMessageSize = o.MaxSendMessageSize = MaxMessage);
        }
        else
        {
            services.AddGrpc(o => o.MaxReceiveMessageSize = o.MaxSendMessageSize = MaxMessage);
        }
    }

    protected override void Map(WebApplication app, RequestHandler handler)
    {
        if (_call == GrpcCall.CodeFirst)
        {
            app.MapGrpcService<CodeFirstEchoService>();
        }
        else
        {
            app.MapGrpcService<EchoService>();
        }
    }

    public override async ValueTask<IConnection> ConnectAsync(Uri address, CancellationToken ct = default)
    {
        var options = EndpointOptions.Parse(address, this);
        var peer = AddressQuery.WithoutQuery(address);
        var channel = OpenChannel(address, options.ConnectTimeout);
        IProbedConnection connection = _call switch
        {
            GrpcCall.Stream => new GrpcStreamConnection(channel, peer.ToString(), MaxPayload),
            GrpcCall.CodeFirst => new GrpcCodeFirstConnection(channel, peer.ToString(), MaxPayload),
            _ => new GrpcUnaryConnection(channel, peer.ToString(), MaxPayload),
        };
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
