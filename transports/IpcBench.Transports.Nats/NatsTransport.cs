using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Kit;
using IpcBench.Kit.Files;
using NATS.Client.Core;
using IConnection = IpcBench.Contract.IConnection;

namespace IpcBench.Transports.Nats;

/// <summary>
/// Core NATS request/reply through a nats-server: the server subscribes to a subject of its own, each request is
/// published there with a reply subject in the client's shared inbox, the reply comes back through it. Two server hops
/// per round trip, as with RabbitMQ's direct reply-to; at-most-once (no persistence), which is what NATS request/reply
/// is. Through NATS.Client.Core, the client NATS publishes for .NET.
/// </summary>
public sealed class NatsTransport : ITransport
{
    public static NatsTransport Core { get; } = new();

    /// <summary>The largest payload a nats-server takes by default (its max_payload); it refuses anything larger.</summary>
    public const int MaxPayload = 1 << 20;

    /// <summary>The server's request subject, which the server names in the address it reports.</summary>
    internal static readonly TransportOption Subject = TransportOption.Text("subject",
        "the server's request subject (a server names its own unless given one, e.g. for a client in another container)", OptionScope.Address);

    private NatsTransport()
    {
    }

    public string Name => "nats";

    public string Description => "NATS: core request/reply through a nats-server, replies to the client's inbox (two server hops)";

    public TransportFamily Family => TransportFamily.Messaging;

    public string Broker => "nats-server";

    public string? UnsupportedReason => null;

    public ValueTask<string?> ProbeAsync(Uri? address, TimeSpan bound, CancellationToken ct = default) => NatsBroker.UnreachableAsync(address, bound, ct);

    /// <summary>Requests on one connection are independent: the shared inbox tells their replies apart.</summary>
    public TransportCapabilities Capabilities => new(
        TransportFeatures.Reliable | TransportFeatures.MessageBoundaries | TransportFeatures.CrossHost | TransportFeatures.Brokered | TransportFeatures.Pipelined,
        MaxPayload);

    /// <summary>The client awaits the library's async calls: there is no blocking mode to vary.</summary>
    public IReadOnlyList<TransportOption> Options => [Subject];

    public Uri DefaultAddress() => NatsBroker.DefaultAddress(Name);

    public async ValueTask<IServer> StartServerAsync(Uri address, RequestHandler handler, CancellationToken ct = default)
    {
        var options = EndpointOptions.Parse(address, this);
        var connection = await ConnectAsync(address, options, "ipcbench server", ct).ConfigureAwait(false);
        try
        {
            string subject = OptionValues.Parse(address, this)[Subject] is { Length: > 0 } given ? given : $"ipcbench.{PrivateDirectory.UniqueName()}";
            return await NatsResponder.StartAsync(connection, subject, AddressQuery.With(NatsBroker.Public(address), Subject.Name, subject), handler, ct)
                .ConfigureAwait(false);
        }
        catch
        {
            await connection.DisposeAsync().ConfigureAwait(false);
            throw;
        }
    }

    public async ValueTask<IConnection> ConnectAsync(Uri address, CancellationToken ct = default)
    {
        var values = OptionValues.Parse(address, this);
        var options = EndpointOptions.From(values);
        string subject = values.Required(Subject, address);
        var peer = NatsBroker.Public(address);
        var requester = new NatsRequester(await ConnectAsync(address, options, "ipcbench client", ct).ConfigureAwait(false), subject, $"{peer} ({subject})");
        // A publish proves nothing: one request answered shows that a server subscribes to the subject.
        await ConnectProbe.ProbeAsync(requester, peer, options.ConnectTimeout, options.RequestTimeout, ct).ConfigureAwait(false);
        return requester;
    }

    private static async Task<NatsConnection> ConnectAsync(Uri address, EndpointOptions options, string name, CancellationToken ct)
    {
        var connection = new NatsConnection(NatsBroker.Options(address, options.ConnectTimeout, options.RequestTimeout, name));
        try
        {
            await connection.ConnectAsync().AsTask().WaitAsync(options.ConnectTimeout + TimeSpan.FromSeconds(1), ct).ConfigureAwait(false);
            return connection;
        }
        catch (Exception e) when (e is NatsException or TimeoutException or OperationCanceledException && !ct.IsCancellationRequested)
        {
            await connection.DisposeAsync().ConfigureAwait(false);
            string why = e is NatsException ? TransportErrors.Innermost(e).Message : $"no answer within {options.ConnectTimeout.TotalMilliseconds:0} ms";
            throw new TransportException($"could not connect to {NatsBroker.Public(address)}: the nats-server: {why}", e);
        }
    }
}
