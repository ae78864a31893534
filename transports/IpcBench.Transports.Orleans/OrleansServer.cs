using System.Net;
using System.Net.Sockets;
using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Kit;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

namespace IpcBench.Transports.Orleans;

/// <summary>
/// A silo in a host of its own, localhost clustering (its silo and gateway ports on loopback, no membership store), the
/// echo grain in it. Orleans takes no port 0 (a silo port of 0 is refused, a gateway port of 0 means no gateway), so the
/// server asks the OS for free ones first. Orleans listens with SO_REUSEADDR, which on Linux lets a second listener share a
/// port without an error: each server names a cluster of its own, in its address, and a client that reaches another
/// silo fails Orleans' handshake instead of talking to it.
/// </summary>
internal sealed class OrleansServer(IHost host, Uri address) : IServer
{
    public const string ServiceId = "ipcbench";

    public Uri Address => address;

    public static async Task<OrleansServer> StartAsync(Uri address, RequestHandler handler, CancellationToken ct)
    {
        int gatewayPort = address.Port > 0 ? address.Port : FreePort();
        string cluster = "ipcbench-" + Guid.NewGuid().ToString("N")[..12];
        var builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Logging.ClearProviders();
        builder.Services.AddSingleton(handler);
        builder.UseOrleans(silo => silo.UseLocalhostClustering(FreePort(), gatewayPort, null, ServiceId, cluster));
        var host = builder.Build();
        try
        {
            await host.StartAsync(ct).ConfigureAwait(false); // returns once the silo, its gateway with it, is active
        }
        catch (Exception e) when (e is not OperationCanceledException)
        {
            host.Dispose();
            throw new TransportException($"the Orleans silo did not start: {e.Message}", e);
        }
        var bound = AddressQuery.With(new Uri($"{address.Scheme}://127.0.0.1:{gatewayPort}"), OrleansTransport.Cluster.Name, cluster);
        return new OrleansServer(host, bound);
    }

    /// <summary>A port no one listens on now; Orleans binds it a moment later (see the class's remark on sharing).</summary>
    private static int FreePort()
    {
        using var probe = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        probe.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        return ((IPEndPoint)probe.LocalEndPoint!).Port;
    }

    public async ValueTask DisposeAsync()
    {
        using var timeout = new CancellationTokenSource(IServer.StopTimeout); // once it fires, the silo stops without waiting for its grains
        try
        {
            await host.StopAsync(timeout.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            Log.Warn($"orleans server {Address}: its silo did not stop within {IServer.StopTimeout.TotalSeconds:0} s");
        }
        host.Dispose();
    }
}
