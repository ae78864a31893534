using IpcBench.Core;
using IpcBench.Core.Options;
using IpcBench.Transports.Kestrel;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Server.Kestrel.Core;

namespace IpcBench.Transports.Http;

/// <summary>
/// Plain HTTP, the "WebAPI" row and the layer under gRPC and SignalR: a Kestrel minimal-API endpoint (<c>POST /echo</c>,
/// the body in, the reply as the body out) called by one reused HttpClient. <c>http</c> is HTTP/1.1 with keep-alive,
/// <c>http2</c> cleartext HTTP/2 (h2c, prior knowledge), the protocol gRPC runs on: beside <c>grpc</c>, what gRPC adds
/// over the HTTP/2 under it.
/// </summary>
public sealed class HttpTransport(bool http2) : ITransport
{
    /// <summary>16 MiB, as the stream transports; Kestrel's request body limit is raised to it.</summary>
    internal const int MaxPayload = 16 * 1024 * 1024;

    public string Name => http2 ? "http2" : "http";

    public TransportFamily Family => TransportFamily.Rpc;

    public string Description => http2
        ? "cleartext HTTP/2 (h2c): POST /echo on a Kestrel minimal API, called by a reused HttpClient"
        : "HTTP/1.1 keep-alive: POST /echo on a Kestrel minimal API, called by a reused HttpClient";

    public string? UnsupportedReason => null;

    /// <summary>HTTP/2 carries concurrent requests on one connection, each its own stream; HTTP/1.1 one at a time.</summary>
    public TransportCapabilities Capabilities => new(
        TransportFeatures.Reliable | TransportFeatures.MessageBoundaries | TransportFeatures.CrossHost | (http2 ? TransportFeatures.Pipelined : 0),
        MaxPayload);

    /// <summary>Kestrel and HttpClient are async through and through: there is no blocking mode to vary.</summary>
    public IReadOnlyList<TransportOption> Options => [];

    public Uri DefaultAddress() => new($"{Name}://127.0.0.1:0");

    public async ValueTask<IServer> StartServerAsync(Uri address, RequestHandler handler, CancellationToken ct = default)
    {
        EndpointOptions.Parse(address, this);
        var endpoint = KestrelHost.TcpEndpoint(address);
        return await KestrelHost.StartAsync(
            options =>
            {
                options.Limits.MaxRequestBodySize = MaxPayload;
                options.Listen(endpoint, l => l.Protocols = http2 ? HttpProtocols.Http2 : HttpProtocols.Http1);
            },
            _ => { },
            app => app.MapPost(EchoEndpoint.Path, context => EchoEndpoint.HandleAsync(context, handler)),
            KestrelHost.TcpAddress(Name), () => { }, ct).ConfigureAwait(false);
    }

    public async ValueTask<IConnection> ConnectAsync(Uri address, CancellationToken ct = default)
    {
        var options = EndpointOptions.Parse(address, this);
        var peer = AddressQuery.WithoutQuery(address);
        var connection = new HttpConnection(peer, http2, options.ConnectTimeout);
        // HttpClient connects on the first request: one request shows that a server is there.
        await ConnectProbe.ProbeAsync(connection, peer, options.ConnectTimeout, options.RequestTimeout, ct).ConfigureAwait(false);
        return connection;
    }
}
