using System.Net;
using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Kit;
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
public sealed class HttpTransport : KestrelTransport
{
    /// <summary>16 MiB, as the stream transports; Kestrel's request body limit is raised to it.</summary>
    internal const int MaxPayload = 16 * 1024 * 1024;

    public static HttpTransport Http1 { get; } = new("http", HttpVersion.Version11,
        "HTTP/1.1 keep-alive: POST /echo on a Kestrel minimal API, called by a reused HttpClient");

    public static HttpTransport Http2 { get; } = new("http2", HttpVersion.Version20,
        "cleartext HTTP/2 (h2c): POST /echo on a Kestrel minimal API, called by a reused HttpClient");

    private readonly Version _version;

    private HttpTransport(string name, Version version, string description) : base(name, KestrelEndpoint.Tcp)
    {
        _version = version;
        Description = description;
    }

    public override string Description { get; }

    /// <summary>HTTP/2 carries concurrent requests on one connection, each its own stream; HTTP/1.1 one at a time.</summary>
    public override TransportCapabilities Capabilities => new(Features | (IsHttp2 ? TransportFeatures.Pipelined : 0), MaxPayload);

    private bool IsHttp2 => _version == HttpVersion.Version20;

    protected override HttpProtocols Protocols => IsHttp2 ? HttpProtocols.Http2 : HttpProtocols.Http1;

    protected override void Limit(KestrelServerOptions options) => options.Limits.MaxRequestBodySize = MaxPayload;

    protected override void Map(WebApplication app, RequestHandler handler) =>
        app.MapPost(EchoEndpoint.Path, context => EchoEndpoint.HandleAsync(context, handler));

    public override async ValueTask<IConnection> ConnectAsync(Uri address, CancellationToken ct = default)
    {
        var options = EndpointOptions.Parse(address, this);
        var peer = AddressQuery.WithoutQuery(address);
        var connection = new HttpConnection(peer, _version, options.ConnectTimeout, handler => Endpoint.ConfigureClient(handler, address, this));
        // HttpClient connects on the first request: one request shows that a server is there.
        await ConnectProbe.ProbeAsync(connection, peer, options.ConnectTimeout, options.RequestTimeout, ct).ConfigureAwait(false);
        return connection;
    }
}
