using System.Runtime.CompilerServices;
using Akka.Actor;
using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Kit;
using IConnection = IpcBench.Contract.IConnection;

namespace IpcBench.Transports.Akka;

/// <summary>
/// Akka.Remote: an Ask from the client process's ActorSystem to an echo actor in the server process's, over Akka's
/// default transport (DotNetty TCP, one association between the two systems). An address is <c>akka://HOST:PORT</c>; the
/// actor is <c>akka.tcp://ipcbench-server@HOST:PORT/user/echo</c>. Akka's defaults throughout: what its users tune is
/// the frame size, batching of small messages, the dispatchers' thread pools, and Tell between actors instead of Ask
/// (the <c>call</c> option).
/// </summary>
public sealed class AkkaTransport : ITransport
{
    public static AkkaTransport Remote { get; } = new();

    /// <summary>The largest payload: Akka's default frame, less room for the envelope (the sender's and recipient's paths).</summary>
    public const int MaxPayload = AkkaSettings.MaximumFrameSize - 1024;

    /// <summary>How the client calls the echo actor: Ask (a temporary actor per request) or Tell from an actor of its own.</summary>
    internal static readonly TransportOption Call = TransportOption.Choice("call",
        "how the client calls the echo actor: ask (Ask, a temporary reply actor and a timeout per request) or tell (Tell from one reply actor the connection keeps)",
        "ask", OptionScope.Client, "ask", "tell") with { Compared = ["ask", "tell"] };

    private AkkaTransport()
    {
    }

    public string Name => "akka";

    public string Description => "Akka.Remote: Ask (or Tell: call=tell) from one ActorSystem to an echo actor in another, over Akka's DotNetty TCP transport";

    public TransportFamily Family => TransportFamily.Rpc;

    public string? UnsupportedReason => null;

    public string? NativeAotUnsupportedReason =>
        "Akka.NET loads its actor-ref provider, transport and serializers by type name from its configuration, which a trimmed build removes (publish warnings IL2104, IL3053 for Akka.dll)";

    /// <summary>
    /// Each Ask has a reply actor of its own, so several may be outstanding on one connection. Cross-host: the client's
    /// system binds the address it reaches the server from (<see cref="ClientSystem"/>).
    /// </summary>
    public TransportCapabilities Capabilities =>
        new(TransportFeatures.Reliable | TransportFeatures.MessageBoundaries | TransportFeatures.Pipelined | TransportFeatures.CrossHost, MaxPayload);

    public IReadOnlyList<TransportOption> Options => [Call];

    public Uri DefaultAddress() => new($"{Name}://127.0.0.1:0");

    // Not async, so that a NativeAOT build folds the test and leaves Akka out (NativeAotRefusal).
    public ValueTask<IServer> StartServerAsync(Uri address, RequestHandler handler, CancellationToken ct = default) =>
        RuntimeFeature.IsDynamicCodeSupported ? StartServerCoreAsync(address, handler, ct) : throw NativeAotRefusal.For(this);

    public ValueTask<IConnection> ConnectAsync(Uri address, CancellationToken ct = default) =>
        RuntimeFeature.IsDynamicCodeSupported ? ConnectCoreAsync(address, ct) : throw NativeAotRefusal.For(this);

    private async ValueTask<IServer> StartServerCoreAsync(Uri address, RequestHandler handler, CancellationToken ct)
    {
        EndpointOptions.Parse(address, this); // the common options are checked here too
        var endpoint = await Endpoints.ResolveAsync(address, ct).ConfigureAwait(false);
        return await Task.Run(() => AkkaServer.Start(Name, endpoint.Address.ToString(), endpoint.Port, handler), ct).ConfigureAwait(false);
    }

    private async ValueTask<IConnection> ConnectCoreAsync(Uri address, CancellationToken ct)
    {
        var values = OptionValues.Parse(address, this);
        var options = EndpointOptions.From(values);
        var peer = AddressQuery.WithoutQuery(address);
        var endpoint = await Endpoints.ResolveAsync(address, ct).ConfigureAwait(false);
        var link = await ServerLink.OpenAsync(endpoint, peer.ToString(), options.ConnectTimeout, ct).ConfigureAwait(false);
        return values[Call] == "tell" ? new TellConnection(link, options.RequestTimeout) : new AkkaConnection(link, options.RequestTimeout);
    }
}
