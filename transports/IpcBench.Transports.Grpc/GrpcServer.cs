using IpcBench.Core;
using IpcBench.Transports.Kestrel;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.DependencyInjection;

namespace IpcBench.Transports.Grpc;

/// <summary>
/// Grpc.AspNetCore serving <see cref="EchoService"/> on Kestrel over cleartext HTTP/2, on a TCP port,
/// a Unix domain socket or a named pipe, inside the 'ipcbench serve' process.
/// </summary>
internal sealed class GrpcServer(KestrelHost host, Uri address) : IServer
{
    public Uri Address { get; } = address;

    /// <param name="listen">Adds the one Kestrel endpoint (HTTP/2 only).</param>
    /// <param name="boundAddress">The address clients use, from Kestrel's bound address.</param>
    /// <param name="maxMessage">The largest encoded message either way.</param>
    public static async Task<GrpcServer> StartAsync(Action<KestrelServerOptions> listen, Func<string, Uri> boundAddress,
        RequestHandler handler, int maxMessage, Action cleanup, CancellationToken ct)
    {
        var host = await KestrelHost.StartAsync(
            listen,
            services =>
            {
                services.AddSingleton(new EchoService.Handler(handler));
                services.AddGrpc(o => o.MaxReceiveMessageSize = o.MaxSendMessageSize = maxMessage);
            },
            app => app.MapGrpcService<EchoService>(),
            cleanup, ct).ConfigureAwait(false);
        return new GrpcServer(host, boundAddress(host.BoundAddress));
    }

    public ValueTask DisposeAsync() => host.DisposeAsync();
}
