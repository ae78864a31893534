using System.Net;
using System.Runtime.CompilerServices;
using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Kit;
using Orleans.Runtime;
using IConnection = IpcBench.Contract.IConnection;

namespace IpcBench.Transports.Orleans;

/// <summary>
/// Microsoft Orleans: a grain call from a client process to a silo in the server process, localhost clustering (the silo
/// and its gateway on loopback, no membership store), through the proxy Orleans' source generator writes. An address is
/// <c>orleans://127.0.0.1:GATEWAY?cluster=ID</c>. Orleans' defaults throughout but two bounds every IpcBench client has: a
/// call's deadline is the request timeout (Orleans' ResponseTimeout, 30 s by default) and connecting is not retried past
/// the connect timeout (Orleans retries for about three minutes).
/// </summary>
public sealed class OrleansTransport : ITransport
{
    public static OrleansTransport LocalhostClustering { get; } = new();

    /// <summary>The largest payload: Orleans' default MaxMessageBodySize (100 MiB), less room for the message's own fields.</summary>
    public const int MaxPayload = 100 * 1024 * 1024 - 1024;

    /// <summary>The server's cluster, which the server names in the address it reports.</summary>
    internal static readonly TransportOption Cluster = TransportOption.Text("cluster",
        "the server's cluster id (each server names its own; a client that reaches another cluster's silo is refused)", OptionScope.Address);

    /// <summary>The last grain key a connection of this process took: each takes a grain of its own.</summary>
    private static int _grains;

    private OrleansTransport()
    {
    }

    public string Name => "orleans";

    public string Description => "Microsoft Orleans: a grain call to a silo in the server process, localhost clustering, Immutable<byte[]>";

    public TransportFamily Family => TransportFamily.Rpc;

    public string? UnsupportedReason => null;

    public string? NativeAotUnsupportedReason =>
        "Orleans finds its application parts and serializers by loading assemblies at start, which a NativeAOT build cannot (dotnet/orleans#9639; publish warnings IL2104, IL3053 for Orleans.Core)";

    /// <summary>Calls carry ids, so several may be outstanding; localhost clustering is one machine's.</summary>
    public TransportCapabilities Capabilities => new(TransportFeatures.Reliable | TransportFeatures.MessageBoundaries | TransportFeatures.Pipelined, MaxPayload);

    public IReadOnlyList<TransportOption> Options => [Cluster];

    public Uri DefaultAddress() => new($"{Name}://127.0.0.1:0");

    // Not async, so that a NativeAOT build folds the test and leaves Orleans out (NativeAotRefusal).
    public ValueTask<IServer> StartServerAsync(Uri address, RequestHandler handler, CancellationToken ct = default) =>
        RuntimeFeature.IsDynamicCodeSupported ? StartServerCoreAsync(address, handler, ct) : throw NativeAotRefusal.For(this);

    public ValueTask<IConnection> ConnectAsync(Uri address, CancellationToken ct = default) =>
        RuntimeFeature.IsDynamicCodeSupported ? ConnectCoreAsync(address, ct) : throw NativeAotRefusal.For(this);

    private async ValueTask<IServer> StartServerCoreAsync(Uri address, RequestHandler handler, CancellationToken ct)
    {
        EndpointOptions.Parse(address, this); // the common options are checked here too
        if (!IPAddress.TryParse(address.Host, out var ip) || !IPAddress.IsLoopback(ip))
        {
            throw new ArgumentException($"{address}: localhost clustering binds loopback only; write {Name}://127.0.0.1:PORT");
        }
        return await OrleansServer.StartAsync(address, handler, ct).ConfigureAwait(false);
    }

    private async ValueTask<IConnection> ConnectCoreAsync(Uri address, CancellationToken ct)
    {
        var values = OptionValues.Parse(address, this);
        var options = EndpointOptions.From(values);
        string cluster = values.Required(Cluster, address);
        var peer = AddressQuery.WithoutQuery(address);
        ClusterClient client;
        try
        {
            client = await ClusterClient.AcquireAsync(address.Port, cluster, options.ConnectTimeout, options.RequestTimeout, ct).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (!ct.IsCancellationRequested)
        {
            throw new TransportTimeoutException($"could not connect to {peer} within {options.ConnectTimeout.TotalMilliseconds:0} ms");
        }
        catch (Exception e) when (e is OrleansException or InvalidOperationException)
        {
            throw new TransportException($"could not connect to {peer}: {e.Message}", e);
        }
        var grain = client.Client.GetGrain<IEchoGrain>(Interlocked.Increment(ref _grains));
        return new OrleansConnection(client, grain, peer.ToString(), options.RequestTimeout);
    }
}
