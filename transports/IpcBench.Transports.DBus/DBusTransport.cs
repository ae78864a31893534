using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Kit;
using IpcBench.Kit.Files;
using Tmds.DBus.Protocol;

namespace IpcBench.Transports.DBus;

/// <summary>
/// D-Bus method calls, Linux's own system IPC, through Tmds.DBus.Protocol (the D-Bus library of .NET's Linux desktop
/// stack, NativeAOT-ready). Each server starts a private dbus-daemon with Debian's session-bus configuration on a
/// socket file in a fresh 0700 directory, and owns a name on it; a client connects to that bus and calls the server's
/// object through it: a brokered method call, two bus hops per round trip, as any D-Bus service is called.
/// </summary>
public sealed class DBusTransport : ITransport
{
    public static DBusTransport Instance { get; } = new();

    /// <summary>As the other transports' default; D-Bus itself allows arrays of up to 64 MiB.</summary>
    public const int MaxPayload = Kit.Framing.LengthPrefix.DefaultMaxPayload;

    private DBusTransport()
    {
    }

    public string Name => "dbus";

    public string Description => "D-Bus method calls (Tmds.DBus.Protocol) through a private dbus-daemon the server starts, socket in a private 0700 directory (two bus hops)";

    public TransportFamily Family => TransportFamily.Messaging;

    public string? UnsupportedReason => PrivateBus.UnsupportedReason;

    /// <summary>Not <see cref="TransportFeatures.Brokered"/>: the bus is the server's own, on a socket file it owns, not a broker it reaches.</summary>
    public TransportCapabilities Capabilities => new(TransportFeatures.Reliable | TransportFeatures.MessageBoundaries | TransportFeatures.Pipelined, MaxPayload);

    /// <summary>The client awaits the library's async calls: there is no blocking mode to vary.</summary>
    public IReadOnlyList<TransportOption> Options => [];

    public Uri DefaultAddress() => PathAddress.ToUri(Name, PrivateDirectory.DefaultPath("bus"));

    public async ValueTask<IServer> StartServerAsync(Uri address, RequestHandler handler, CancellationToken ct = default)
    {
        var options = EndpointOptions.Parse(address, this);
        if (UnsupportedReason is { } reason)
        {
            throw new TransportException($"dbus does not run here: {reason}");
        }
        var claim = await StaleSocketFile.ClaimAsync(PathAddress.ToPath(address), ct).ConfigureAwait(false);
        try
        {
            PathAddress.CheckSocketPath(claim.Path);
            return await DBusResponder.StartAsync(claim, PathAddress.ToUri(Name, claim.Path), handler, options.ConnectTimeout, ct).ConfigureAwait(false);
        }
        catch
        {
            claim.GiveUp();
            throw;
        }
    }

    public async ValueTask<IConnection> ConnectAsync(Uri address, CancellationToken ct = default)
    {
        var options = EndpointOptions.Parse(address, this);
        string path = PathAddress.ToPath(address);
        PathAddress.CheckSocketPath(path);
        var connection = new DBusConnection(new DBusConnectionOptions(PrivateBus.Address(path)) { AutoConnect = false });
        try
        {
            await connection.ConnectAsync().AsTask().WaitAsync(options.ConnectTimeout, ct).ConfigureAwait(false);
        }
        catch (Exception e) when (e is DBusExceptionBase or TimeoutException)
        {
            connection.Dispose();
            string why = e is TimeoutException ? $"no answer within {options.ConnectTimeout.TotalMilliseconds:0} ms"
                : File.Exists(path) ? e.Message
                : "no bus there (no socket file)"; // .NET words a missing socket file as "Cannot assign requested address"
            throw new TransportException($"could not connect to {AddressQuery.WithoutQuery(address)}: {why}", e);
        }
        catch
        {
            connection.Dispose();
            throw;
        }
        var requester = new DBusRequester(connection, path);
        // Connected to the bus is not yet a server on it: one call answered shows the name is owned.
        await ConnectProbe.ProbeAsync(requester, address, options.ConnectTimeout, options.RequestTimeout, ct).ConfigureAwait(false);
        return requester;
    }
}
