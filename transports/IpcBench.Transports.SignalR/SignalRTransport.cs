using IpcBench.Core;
using IpcBench.Transports.Kestrel;
using Microsoft.AspNetCore.SignalR.Protocol;

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

    private readonly IHubProtocol _protocol;

    private SignalRTransport(string name, IHubProtocol protocol)
    {
        Name = name;
        _protocol = protocol;
    }

    public static SignalRTransport MessagePack() => new("signalr", new MessagePackProtocol());

    public static SignalRTransport Json() => new("signalr-json", new JsonHubProtocol());

    public string Name { get; }

    public string Description =>
        $"SignalR hub over a WebSocket (negotiation skipped), {_protocol.Name} protocol: Kestrel + HubConnection";

    public string? UnsupportedReason => null;

    public TransportCapabilities Capabilities => new(
        TransportFeatures.Reliable | TransportFeatures.MessageBoundaries | TransportFeatures.CrossHost, MaxPayload);

    /// <summary>HubConnection and Kestrel are async through and through: there is no blocking mode to vary.</summary>
    public IReadOnlyList<string> Variants => [];

    public Uri DefaultAddress() => new($"{Name}://127.0.0.1:0");

    public async ValueTask<IServer> StartServerAsync(Uri address, RequestHandler handler, CancellationToken ct = default)
    {
        EndpointOptions.Parse(address);
        return await SignalRServer.StartAsync(Name, KestrelHost.TcpEndpoint(address), handler, MaxEncoded, ct).ConfigureAwait(false);
    }

    public async ValueTask<IConnection> ConnectAsync(Uri address, CancellationToken ct = default)
    {
        var options = EndpointOptions.Parse(address);
        var peer = EndpointOptions.WithoutQuery(address);
        var hubUri = new Uri($"ws://{peer.Authority}{EchoHub.Path}");
        return await SignalRConnection.ConnectAsync(peer, hubUri, _protocol, MaxPayload, options.ConnectTimeout, options.RequestTimeout, ct)
            .ConfigureAwait(false);
    }
}
