using IpcBench.Contract;
using IpcBench.Contract.Options;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.DependencyInjection;

namespace IpcBench.Transports.Kestrel;

/// <summary>
/// A transport whose server is an ASP.NET Core app on Kestrel inside the 'ipcbench serve' process (http, grpc, signalr):
/// where it listens is its <see cref="KestrelEndpoint"/>; what it serves there, and how its client calls, its own.
/// Kestrel and the .NET HTTP clients are async through and through: there is no blocking mode to vary.
/// </summary>
public abstract class KestrelTransport(string name, KestrelEndpoint endpoint) : ITransport
{
    public string Name => name;

    public abstract string Description { get; }

    public TransportFamily Family => TransportFamily.Rpc;

    public string? UnsupportedReason => Endpoint.UnsupportedReason;

    public virtual string? NativeAotUnsupportedReason => null;

    public abstract TransportCapabilities Capabilities { get; }

    public IReadOnlyList<TransportOption> Options => Endpoint.Options;

    protected KestrelEndpoint Endpoint => endpoint;

    /// <summary>Reliable and message-bounded, as every HTTP exchange is; across hosts when the endpoint is.</summary>
    protected TransportFeatures Features => TransportFeatures.Reliable | TransportFeatures.MessageBoundaries | (Endpoint.CrossHost ? TransportFeatures.CrossHost : 0);

    public Uri DefaultAddress() => Endpoint.DefaultAddress(Name);

    public async ValueTask<IServer> StartServerAsync(Uri address, RequestHandler handler, CancellationToken ct = default)
    {
        EndpointOptions.Parse(address, this); // the common options are checked here too
        var binding = await Endpoint.BindAsync(Name, address, ct).ConfigureAwait(false);
        return await KestrelHost.StartAsync(
            options =>
            {
                Limit(options);
                binding.Listen(options, listen => listen.Protocols = Protocols);
            },
            services => AddServices(services, handler),
            app => Map(app, handler),
            binding.Address, binding.Cleanup, ct).ConfigureAwait(false);
    }

    public abstract ValueTask<IConnection> ConnectAsync(Uri address, CancellationToken ct = default);

    /// <summary>The HTTP versions the server speaks.</summary>
    protected abstract HttpProtocols Protocols { get; }

    /// <summary>Kestrel's limits the transport's largest message needs raised.</summary>
    protected virtual void Limit(KestrelServerOptions options)
    {
    }

    protected virtual void AddServices(IServiceCollection services, RequestHandler handler)
    {
    }

    /// <summary>Maps the one endpoint (and any middleware it needs) on the built app.</summary>
    protected abstract void Map(WebApplication app, RequestHandler handler);
}
