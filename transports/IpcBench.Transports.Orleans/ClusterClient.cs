using IpcBench.Contract;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Orleans.Configuration;

namespace IpcBench.Transports.Orleans;

/// <summary>
/// One Orleans client (a host with <c>UseOrleansClient</c>) per server address in a process, as Orleans' users keep one
/// per process: made by the first connection to that server, shared by those open at once (a load run's clients),
/// stopped with the last. Starting one costs half a second or more.
/// </summary>
internal sealed class ClusterClient : IClusterConnectionStatusObserver
{
    private static readonly Dictionary<string, ClusterClient> Open = [];
    private static readonly SemaphoreSlim Gate = new(1, 1);

    private readonly string _key;
    private readonly IHost _host;
    private readonly CancellationTokenSource _lost = new();
    private int _users;

    private ClusterClient(string key, Func<IClusterConnectionStatusObserver, IHost> build)
    {
        _key = key;
        _host = build(this);
    }

    public IClusterClient Client => _host.Services.GetRequiredService<IClusterClient>();

    /// <summary>Cancelled when the client has no gateway left: the silo's process died or stopped.</summary>
    public CancellationToken Lost => _lost.Token;

    /// <summary>The client for the server at <paramref name="gatewayPort"/> in <paramref name="cluster"/>, connected within <paramref name="connectTimeout"/>.</summary>
    public static async Task<ClusterClient> AcquireAsync(int gatewayPort, string cluster, TimeSpan connectTimeout, TimeSpan responseTimeout, CancellationToken ct)
    {
        string key = $"{gatewayPort}/{cluster}/{responseTimeout.Ticks}";
        await Gate.WaitAsync(ct).ConfigureAwait(false);
        try
        {
            if (!Open.TryGetValue(key, out var client))
            {
                client = new ClusterClient(key, observer => Build(gatewayPort, cluster, responseTimeout, observer));
                using var timeout = CancellationTokenSource.CreateLinkedTokenSource(ct);
                timeout.CancelAfter(connectTimeout);
                try
                {
                    await client._host.StartAsync(timeout.Token).ConfigureAwait(false);
                }
                catch
                {
                    client._host.Dispose();
                    throw;
                }
                Open[key] = client;
            }
            client._users++;
            return client;
        }
        finally
        {
            Gate.Release();
        }
    }

    private static IHost Build(int gatewayPort, string cluster, TimeSpan responseTimeout, IClusterConnectionStatusObserver observer)
    {
        var builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Logging.ClearProviders();
        builder.Services.AddSingleton(observer);
        builder.UseOrleansClient(client =>
        {
            client.UseLocalhostClustering(gatewayPort, OrleansServer.ServiceId, cluster);
            // A call's deadline: Orleans fails a call whose reply does not come within it (its default is 30 s).
            client.Configure<ClientMessagingOptions>(o => o.ResponseTimeout = responseTimeout);
            // Connecting is bounded by the connect timeout alone: no retries for three minutes (Orleans' default back-off).
            client.UseConnectionRetryFilter((_, _) => Task.FromResult(false));
        });
        return builder.Build();
    }

    public async ValueTask ReleaseAsync()
    {
        await Gate.WaitAsync().ConfigureAwait(false);
        try
        {
            if (--_users > 0)
            {
                return;
            }
            Open.Remove(_key);
        }
        finally
        {
            Gate.Release();
        }
        using var timeout = new CancellationTokenSource(IServer.StopTimeout);
        try
        {
            await _host.StopAsync(timeout.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            // stopped without waiting any longer
        }
        _host.Dispose();
    }

    public void NotifyClusterConnectionLost() => _lost.Cancel();

    public void NotifyGatewayCountChanged(int currentNumberOfGateways, int previousNumberOfGateways, bool connectionRecovered)
    {
        if (currentNumberOfGateways == 0)
        {
            _lost.Cancel();
        }
    }
}
