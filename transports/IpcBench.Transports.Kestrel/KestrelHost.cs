using System.Net;
using IpcBench.Contract;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using KestrelServer = Microsoft.AspNetCore.Hosting.Server.IServer;

namespace IpcBench.Transports.Kestrel;

/// <summary>
/// A minimal ASP.NET Core app on Kestrel with one endpoint, inside the 'ipcbench serve' process: the
/// server half of the transports that ride on HTTP (gRPC, SignalR). Logging is off because stdout
/// carries only the READY line.
/// </summary>
public sealed class KestrelHost : IServer
{
    private readonly WebApplication _app;
    private readonly Action _cleanup;

    private KestrelHost(WebApplication app, Uri address, Action cleanup)
    {
        _app = app;
        _cleanup = cleanup;
        Address = address;
    }

    public Uri Address { get; }

    /// <summary>
    /// The IP endpoint a server address (<c>scheme://host:port</c>) asks Kestrel to bind: an IP
    /// address, or "localhost" as 127.0.0.1 (the loopback IPv4 clients reach first); port 0 or none
    /// for a free port.
    /// </summary>
    public static IPEndPoint TcpEndpoint(Uri address)
    {
        string host = address.DnsSafeHost == "localhost" ? "127.0.0.1" : address.DnsSafeHost;
        return IPAddress.TryParse(host, out var ip)
            ? new IPEndPoint(ip, Math.Max(address.Port, 0))
            : throw new ArgumentException($"a server binds an IP address (such as 127.0.0.1 or 0.0.0.0), not '{address.Host}'");
    }

    /// <summary>The TCP address Kestrel bound (its host and port) under the transport's scheme.</summary>
    public static Func<string, Uri> TcpAddress(string scheme) => bound => new Uri($"{scheme}://{new Uri(bound).Authority}");

    /// <param name="listen">Adds the one Kestrel endpoint and sets its limits.</param>
    /// <param name="services">Adds the services the endpoint needs.</param>
    /// <param name="map">Maps the endpoint (and any middleware it needs) on the built app.</param>
    /// <param name="address">
    /// The address clients use, from the one Kestrel bound as it reports it ("http://127.0.0.1:40123", "http://unix:/path").
    /// </param>
    /// <param name="cleanup">Runs once the server has stopped, or when it could not start (socket files, directories).</param>
    public static async Task<KestrelHost> StartAsync(Action<KestrelServerOptions> listen, Action<IServiceCollection> services,
        Action<WebApplication> map, Func<string, Uri> address, Action cleanup, CancellationToken ct)
    {
        var builder = WebApplication.CreateSlimBuilder(new WebApplicationOptions { ContentRootPath = AppContext.BaseDirectory });
        builder.Logging.ClearProviders();
        builder.WebHost.ConfigureKestrel(listen);
        services(builder.Services);
        var app = builder.Build();
        map(app);
        try
        {
            await app.StartAsync(ct).ConfigureAwait(false);
        }
        catch (Exception e) when (e is IOException or InvalidOperationException)
        {
            await app.DisposeAsync().ConfigureAwait(false);
            cleanup();
            throw new TransportException($"cannot listen: {e.Message}", e);
        }
        string bound = app.Services.GetRequiredService<KestrelServer>().Features.Get<IServerAddressesFeature>()!.Addresses.First();
        return new KestrelHost(app, address(bound), cleanup);
    }

    public async ValueTask DisposeAsync()
    {
        using var timeout = new CancellationTokenSource(IServer.StopTimeout);
        await _app.StopAsync(timeout.Token).ConfigureAwait(false);
        await _app.DisposeAsync().ConfigureAwait(false);
        _cleanup();
    }
}
