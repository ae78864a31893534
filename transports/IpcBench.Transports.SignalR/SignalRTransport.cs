using IpcBench.Core;
using IpcBench.Core.Options;
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
public sealed class SignalRTransport : ITransport
{
    /// <summary>The largest payload: 1 MiB, far above the suite's 100 KB; the encoded message may be up to twice that (JSON's base64 and envelope).</summary>
    private const int MaxPayload = 1 << 20;
    private const int MaxEncoded = 2 * MaxPayload;

    private readonly string _protocol;
    private readonly Func<IHubConnectionBuilder, IHubConnectionBuilder> _withProtocol;

    private SignalRTransport(string name, string protocol, Func<IHubConnectionBuilder, IHubConnectionBuilder> withProtocol)
    {
        Name = name;
        _protocol = protocol;
        _withProtocol = withProtocol;
    }

    public static SignalRTransport MessagePack() => new("signalr", "MessagePack", b => b.AddMessagePackProtocol());

    /// <summary>JSON is what a HubConnectionBuilder speaks unless told otherwise.</summary>
    public static SignalRTransport Json() => new("signalr-json", "JSON", b => b);

    public TransportFamily Family => TransportFamily.Rpc;

    public string Name { get; }

    public string Description =>
        $"SignalR hub on Kestrel, called by HubConnection over a WebSocket (negotiation skipped), {_protocol} hub protocol";

    public string? UnsupportedReason => null;

    /// <summary>Invocations carry ids, so several may be outstanding on one connection (the hub answers them in turn).</summary>
    public TransportCapabilities Capabilities => new(
        TransportFeatures.Reliable | TransportFeatures.MessageBoundaries | TransportFeatures.CrossHost | TransportFeatures.Pipelined, MaxPayload);

    /// <summary>HubConnection and Kestrel are async through and through: there is no blocking mode to vary.</summary>
    public IReadOnlyList<TransportOption> Options => [];

    public Uri DefaultAddress() => new($"{Name}://127.0.0.1:0");

    /// <summary>
    /// Kestrel serving <see cref="EchoHub"/> over WebSockets (HTTP/1.1 upgrade). It speaks both hub protocols,
    /// JSON and MessagePack; each client picks one in its handshake.
    /// </summary>
    public async ValueTask<IServer> StartServerAsync(Uri address, RequestHandler handler, CancellationToken ct = default)
    {
        EndpointOptions.Parse(address, this);
        var endpoint = KestrelHost.TcpEndpoint(address);
        return await KestrelHost.StartAsync(
            options => options.Listen(endpoint, l => l.Protocols = HttpProtocols.Http1),
            services =>
            {
                services.AddSingleton(handler);
                services.AddSignalR(o => o.MaximumReceiveMessageSize = MaxEncoded).AddMessagePackProtocol(); // JSON comes with it
            },
            app =>
            {
                app.UseWebSockets();
                app.MapHub<EchoHub>(EchoHub.Path, o =>
                {
                    o.Transports = HttpTransportType.WebSockets;
                    // Back-pressure thresholds, not limits: a whole message fits before either side pauses.
                    o.TransportMaxBufferSize = o.ApplicationMaxBufferSize = MaxEncoded;
                });
            },
            KestrelHost.TcpAddress(Name), () => { }, ct).ConfigureAwait(false);
    }

    public async ValueTask<IConnection> ConnectAsync(Uri address, CancellationToken ct = default)
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
