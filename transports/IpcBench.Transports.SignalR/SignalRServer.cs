using System.Net;
using IpcBench.Core;
using IpcBench.Transports.Kestrel;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http.Connections;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.DependencyInjection;

namespace IpcBench.Transports.SignalR;

/// <summary>
/// Kestrel serving <see cref="EchoHub"/> over WebSockets (HTTP/1.1 upgrade), inside the 'ipcbench serve'
/// process. It speaks both hub protocols, JSON and MessagePack; each client picks one in its handshake.
/// </summary>
internal sealed class SignalRServer(KestrelHost host, Uri address) : IServer
{
    public Uri Address { get; } = address;

    public static async Task<SignalRServer> StartAsync(string scheme, IPEndPoint endpoint, RequestHandler handler, int maxEncoded, CancellationToken ct)
    {
        var host = await KestrelHost.StartAsync(
            options => options.Listen(endpoint, l => l.Protocols = HttpProtocols.Http1),
            services =>
            {
                services.AddSingleton(new HubRequestHandler(handler));
                services.AddSignalR(o => o.MaximumReceiveMessageSize = maxEncoded).AddMessagePackProtocol(); // JSON comes with it
            },
            app =>
            {
                app.UseWebSockets();
                app.MapHub<EchoHub>(EchoHub.Path, o =>
                {
                    o.Transports = HttpTransportType.WebSockets;
                    // Back-pressure thresholds, not limits: a whole message fits before either side pauses.
                    o.TransportMaxBufferSize = o.ApplicationMaxBufferSize = maxEncoded;
                });
            },
            () => { }, ct).ConfigureAwait(false);
        return new SignalRServer(host, new Uri($"{scheme}://{new Uri(host.BoundAddress).Authority}"));
    }

    public ValueTask DisposeAsync() => host.DisposeAsync();
}
