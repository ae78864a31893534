using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Transports.Kestrel;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http.Connections;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.AspNetCore.SignalR.Client;
using Microsoft.Extensions.DependencyInjection;

namespace IpcBench.Transports.SignalR;

/// <summary>
/// SignalR: an ASP.NET Core hub on Kestrel and the .NET SignalR client (HubConnection) over a
/// WebSocket, negotiation skipped. <c>signalr</c> speaks the MessagePack hub protocol,
/// <c>signalr-json</c> the JSON one (the default most apps run; byte arrays travel as base64).
/// </summary>
public sealed class SignalRTransport : KestrelTransport
{
    /// <summary>The largest payload: 1 MiB, far above the suite's 100 KB; the encoded message may be up to twice that (JSON's base64 and envelope).</summary>
    private const int MaxPayload = 1 << 20;
    private const int MaxEncoded = 2 * MaxPayload;

    public static SignalRTransport MessagePack { get; } = new("signalr", "MessagePack", b => b.AddMessagePackProtocol());

    /// <summary>JSON is what a HubConnectionBuilder speaks unless told otherwise.</summary>
    public static SignalRTransport Json { get; } = new("signalr-json", "JSON", b => b);

    private readonly string _protocol;
    private readonly Func<IHubConnectionBuilder, IHubConnectionBuilder> _withProtocol;

    /// <summary>Over TCP only: the SignalR client's WebSocket has no ConnectCallback to reach a socket file.</summary>
    private SignalRTransport(string name, string protocol, Func<IHubConnectionBuilder, IHubConnectionBuilder> withProtocol)
        : base(name, KestrelEndpoint.Tcp)
    {
        _protocol = protocol;
        _withProtocol = withProtocol;
    }

    public override string Description =>
        $"SignalR hub on Kestrel, called by HubConnection over a WebSocket (negotiation skipped), {_protocol} hub protocol";

    /// <summary>MessagePack's hub protocol runs in a NativeAOT client; the JSON one serializes by reflection.</summary>
    public override string? NativeAotUnsupportedReason => _protocol == "JSON"
        ? "SignalR's JSON hub protocol serializes the hub's arguments with reflection-based System.Text.Json, which a NativeAOT build has not (\"Reflection-based serialization has been disabled\")"
        : null;

    /// <summary>Invocations carry ids, so several may be outstanding on one connection (the hub answers them in turn).</summary>
    public override TransportCapabilities Capabilities => new(Features | TransportFeatures.Pipelined, MaxPayload);

    /// <summary>WebSockets, an HTTP/1.1 upgrade.</summary>
    protected override HttpProtocols Protocols => HttpProtocols.Http1;

    /// <summary>The hub speaks both hub protocols, JSON and MessagePack; each client picks one in its handshake.</summary>
    protected override void AddServices(IServiceCollection services, RequestHandler handler)
    {
        services.AddSingleton(handler);
        services.AddSignalR(o => o.MaximumReceiveMessageSize = MaxEncoded).AddMessagePackProtocol(); // JSON comes with it
    }

    protected override void Map(WebApplication app, RequestHandler handler)
    {
        app.UseWebSockets();
        app.MapHub<EchoHub>(EchoHub.Path, o =>
        {
            o.Transports = HttpTransportType.WebSockets;
            // Back-pressure thresholds, not limits: a whole message fits before either side pauses.
            o.TransportMaxBufferSize = o.ApplicationMaxBufferSize = MaxEncoded;
        });
    }

    public override async ValueTask<IConnection> ConnectAsync(Uri address, CancellationToken ct = default)
    {
        var options = EndpointOptions.Parse(address, this);
        var peer = AddressQuery.WithoutQuery(address);
        var hub = _withProtocol(new HubConnectionBuilder().WithUrl($"http://{peer.Authority}{EchoHub.Path}", HttpTransportType.WebSockets, o =>
        {
            o.SkipNegotiation = true;
            o.TransportMaxBufferSize = o.ApplicationMaxBufferSize = MaxEncoded; // back-pressure thresholds: a whole message fits
        })).Build();
        return await SignalRConnection.ConnectAsync(hub, peer, MaxPayload, options.ConnectTimeout, options.RequestTimeout, ct).ConfigureAwait(false);
    }
}
