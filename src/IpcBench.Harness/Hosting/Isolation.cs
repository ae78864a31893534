using IpcBench.Contract;

namespace IpcBench.Harness.Hosting;

/// <summary>Where a server that IpcBench starts runs, as seen from its client.</summary>
public enum Isolation
{
    /// <summary>Beside the client, in the same namespaces.</summary>
    None,

    /// <summary>In a network namespace of its own, joined by a veth pair (<see cref="NetworkNamespace"/>).</summary>
    Netns,

    /// <summary>
    /// As <see cref="Netns"/>, and in PID, IPC, UTS and mount namespaces of its own with a /dev/shm of its own: a
    /// process-isolated container without an image, sharing the rest of the file system as a container's bind mounts do.
    /// </summary>
    Container,

    /// <summary>Under gVisor, a kernel in user space between the server and the host's (<see cref="GVisorSandbox"/>).</summary>
    Sandbox,
}

public static class Isolations
{
    /// <summary>The case option that names a case's isolation ("isolation=netns").</summary>
    public const string OptionName = "isolation";

    public static IReadOnlyList<string> Names { get; } = Enum.GetValues<Isolation>().Select(Name).ToArray();

    public const string Help = "none: the server runs beside the client; netns: in a fresh network namespace joined by a veth pair on a "
        + "link-local /30, as a Docker bridge joins a container; container: netns plus PID, IPC, UTS and mount namespaces with "
        + "a /dev/shm of its own, a container without an image; sandbox: under gVisor (runsc do: a kernel in user space), for "
        + "transports that meet on a socket file (netns, container and sandbox: Linux, root)";

    public static string Name(this Isolation isolation) => isolation.ToString().ToLowerInvariant();

    /// <summary>The isolation named <paramref name="name"/>, or null when none is.</summary>
    public static Isolation? Parse(string name) =>
        Enum.GetValues<Isolation>().Select(i => (Isolation?)i).FirstOrDefault(i => i!.Value.Name() == name);

    /// <summary>
    /// Whether the server runs in a pid namespace of its own, where its pid is not the one its starter knows it by
    /// (<see cref="Kit.Processes.PidNamespace"/>).
    /// </summary>
    public static bool HasOwnPids(this Isolation isolation) => isolation is Isolation.Container or Isolation.Sandbox;

    /// <summary>What a case run in <paramref name="isolation"/> is named by besides its transport's options ("isolation=netns"); null for none.</summary>
    public static string? CaseOption(this Isolation isolation) => isolation == Isolation.None ? null : $"{OptionName}={isolation.Name()}";

    /// <summary>Why <paramref name="transport"/>'s server cannot run in <paramref name="isolation"/> here, or null when it can.</summary>
    public static string? Refuses(this Isolation isolation, ITransport transport) => isolation switch
    {
        Isolation.None => null,
        _ when transport.Capabilities.Has(TransportFeatures.InProcess) => "it has no server process to isolate: its handler runs in the client's process",
        _ when ListensOnLoopbackAlone(transport) =>
            "its server listens on loopback alone (orleans: localhost clustering), and an isolated server's loopback is not its client's",
        Isolation.Sandbox => GVisorSandbox.UnsupportedReason ?? GVisorSandbox.Refuses(transport),
        _ when NetworkNamespace.UnsupportedReason is { } reason => reason,
        // A broker reached through a socket file (redis-uds) is as near in a namespace as outside it.
        _ when transport.Capabilities.Has(TransportFeatures.Brokered) && transport.Capabilities.Has(TransportFeatures.CrossHost) =>
            "its server reaches the broker on the host's loopback, which a network namespace does not share",
        Isolation.Container when transport.DefaultAddress().AbsolutePath.StartsWith("/dev/shm/", StringComparison.Ordinal) =>
            "its client and server meet on shared memory in /dev/shm, and the server's /dev/shm is its own",
        _ => null,
    };

    /// <summary>A server reached at an IP address that crosses no host: one bound to loopback, which no isolation shares with the client.</summary>
    private static bool ListensOnLoopbackAlone(ITransport transport) =>
        !transport.Capabilities.Has(TransportFeatures.CrossHost) && !transport.Capabilities.Has(TransportFeatures.Brokered)
        && System.Net.IPAddress.TryParse(transport.DefaultAddress().Host, out var ip) && System.Net.IPAddress.IsLoopback(ip);
}
