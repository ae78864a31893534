using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Kit;
using StackExchange.Redis;
using IConnection = IpcBench.Contract.IConnection;
using IServer = IpcBench.Contract.IServer;

namespace IpcBench.Transports.Redis;

/// <summary>
/// Request/reply through a redis-server's pub/sub, through StackExchange.Redis, over TCP or the server's Unix socket.
/// Pub/sub rather than a list with a blocking pop: StackExchange.Redis multiplexes every caller over one connection
/// and so, by design, runs no blocking command (BLPOP would stall them all); the pattern it documents instead wakes
/// the reader by pub/sub, and a request/reply that needs no persistence can carry its payload in that message itself.
/// Two server hops per round trip, as with NATS; at-most-once, and a request that finds no subscriber is reported at
/// once (PUBLISH says how many received it).
/// </summary>
public sealed class RedisTransport : ITransport
{
    public static RedisTransport Tcp { get; } = new("redis", unixSocket: false);

    public static RedisTransport UnixSocket { get; } = new("redis-uds", unixSocket: true);

    /// <summary>
    /// The largest payload sent, as nats's. A redis-server drops a subscriber with more than 32 MB of messages pending
    /// (8 MB for a minute: its pubsub client-output-buffer-limit), and a server's one subscription takes every client's
    /// requests: 1 MiB keeps 16 clients with a request in flight each, or one with 16, below it.
    /// </summary>
    public const int MaxPayload = 1 << 20;

    /// <summary>The longest request channel: a client's reply channel, this name with ".reply." and 32 hex digits, must fit in 255 bytes.</summary>
    private const int MaxChannelBytes = RedisMessages.MaxChannelLength - 7 - 32;

    /// <summary>The server's request channel, which the server names in the address it reports.</summary>
    internal static readonly TransportOption Channel = TransportOption.Text("channel",
        "the server's request channel (a server names its own unless given one, e.g. for a client in another container)", OptionScope.Address);

    private readonly bool _unixSocket;

    private RedisTransport(string name, bool unixSocket)
    {
        Name = name;
        _unixSocket = unixSocket;
    }

    public string Name { get; }

    public string Description => _unixSocket
        ? "Redis pub/sub request/reply through a redis-server's Unix socket (two server hops)"
        : "Redis pub/sub request/reply through a redis-server over TCP (two server hops)";

    public TransportFamily Family => TransportFamily.Messaging;

    /// <summary>Unix sockets where the OS has them (Wine, for one, gives Windows programs none); the server is asked by <see cref="ProbeAsync"/>.</summary>
    public string Broker => "redis-server";

    public string? UnsupportedReason => _unixSocket && !System.Net.Sockets.Socket.OSSupportsUnixDomainSockets ? "this OS has no Unix domain sockets" : null;

    public async ValueTask<string?> ProbeAsync(Uri? address, TimeSpan bound, CancellationToken ct = default) =>
        UnsupportedReason ?? await RedisBroker.UnreachableAsync(_unixSocket, address, bound, ct).ConfigureAwait(false);

    /// <summary>Requests on one connection are independent: their ids tell the replies apart.</summary>
    public TransportCapabilities Capabilities => new(
        TransportFeatures.Reliable | TransportFeatures.MessageBoundaries | TransportFeatures.Brokered | TransportFeatures.Pipelined
            | (_unixSocket ? TransportFeatures.None : TransportFeatures.CrossHost),
        MaxPayload);

    /// <summary>The client awaits the library's async calls: there is no blocking mode to vary.</summary>
    public IReadOnlyList<TransportOption> Options => [Channel];

    public Uri DefaultAddress() => RedisBroker.DefaultAddress(Name, _unixSocket);

    public async ValueTask<IServer> StartServerAsync(Uri address, RequestHandler handler, CancellationToken ct = default)
    {
        var options = EndpointOptions.Parse(address, this);
        var redis = await ConnectAsync(address, options, "ipcbench-server", ct).ConfigureAwait(false);
        try
        {
            string channel = OptionValues.Parse(address, this)[Channel] is { Length: > 0 } given ? CheckChannel(given) : $"ipcbench:{Kit.Files.PrivateDirectory.UniqueName()}";
            var reported = AddressQuery.With(RedisBroker.Public(address, _unixSocket), Channel.Name, channel);
            return await RedisResponder.StartAsync(redis, channel, reported, handler, ct).ConfigureAwait(false);
        }
        catch
        {
            await CloseAsync(redis).ConfigureAwait(false);
            throw;
        }
    }

    public async ValueTask<IConnection> ConnectAsync(Uri address, CancellationToken ct = default)
    {
        var values = OptionValues.Parse(address, this);
        var options = EndpointOptions.From(values);
        string channel = CheckChannel(values.Required(Channel, address));
        var peer = RedisBroker.Public(address, _unixSocket);
        var redis = await ConnectAsync(address, options, "ipcbench-client", ct).ConfigureAwait(false);
        RedisRequester requester;
        try
        {
            requester = await RedisRequester.OpenAsync(redis, channel, $"{peer} ({channel})", options.RequestTimeout, options.ConnectTimeout, ct).ConfigureAwait(false);
        }
        catch
        {
            await CloseAsync(redis).ConfigureAwait(false);
            throw;
        }
        // A publish that reaches a subscriber proves little: one request answered shows that a server serves the channel.
        await ConnectProbe.ProbeAsync(requester, peer, options.ConnectTimeout, options.RequestTimeout, ct).ConfigureAwait(false);
        return requester;
    }

    private static string CheckChannel(string channel) => System.Text.Encoding.UTF8.GetByteCount(channel) <= MaxChannelBytes ? channel
        : throw new ArgumentException($"a redis channel name is at most {MaxChannelBytes} bytes (its clients' reply channels add 39): {channel}");

    private async Task<ConnectionMultiplexer> ConnectAsync(Uri address, EndpointOptions options, string name, CancellationToken ct)
    {
        var configuration = RedisBroker.Options(address, _unixSocket, options.ConnectTimeout, options.RequestTimeout, name);
        var connecting = ConnectionMultiplexer.ConnectAsync(configuration);
        try
        {
            return await connecting.WaitAsync(options.ConnectTimeout + TimeSpan.FromSeconds(1), ct).ConfigureAwait(false);
        }
        catch (Exception e) when (e is RedisException or TimeoutException or OperationCanceledException)
        {
            // A connect given up on may still succeed later: that multiplexer is closed, not left connected.
            _ = connecting.ContinueWith(t => t.Result.Dispose(), CancellationToken.None, TaskContinuationOptions.OnlyOnRanToCompletion, TaskScheduler.Default);
            if (ct.IsCancellationRequested)
            {
                throw;
            }
            string why = e is RedisException ? e.Message : $"no answer within {options.ConnectTimeout.TotalMilliseconds:0} ms";
            throw new TransportException($"could not connect to {RedisBroker.Public(address, _unixSocket)}: the redis-server: {why}", e);
        }
    }

    /// <summary>Closes a multiplexer, letting what it already sent finish; a server already gone is no news then.</summary>
    internal static async Task CloseAsync(ConnectionMultiplexer redis)
    {
        try
        {
            await redis.CloseAsync(allowCommandsToComplete: true).WaitAsync(IServer.StopTimeout).ConfigureAwait(false);
        }
        catch (Exception e) when (e is RedisException or TimeoutException or ObjectDisposedException)
        {
        }
        await redis.DisposeAsync().ConfigureAwait(false);
    }
}
