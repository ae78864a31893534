using IpcBench.Cli.Commands;

namespace IpcBench.Cli.Containers;

/// <summary>
/// A container pair (docker/compose.yaml): a compose profile, the file that puts its server under another runtime, and
/// that runtime (runc, gVisor's, a VM's).
/// </summary>
internal sealed record Pair(string Name, string Profile, string? Overlay, string Runtime)
{
    /// <summary>How the pair is named as an isolation: in a case's options and the isolation table.</summary>
    public string Isolation => "docker-" + Name;
}

/// <summary>One measurement of a transport in a pair, or why the pair cannot carry it.</summary>
/// <param name="Address">What both ends are told (empty: the profile's own); <paramref name="BrokerImage"/> the broker's container.</param>
internal sealed record PairStep(Pair Pair, string? Address, string? BrokerImage, string? Refusal);

/// <summary>
/// Which boundaries <c>ipcbench isolations</c> measures a transport across, decided from what its client meets its server
/// on (<see cref="TransportListing.MeetsOn"/>), never from its name.
/// </summary>
internal static class ContainerPairs
{
    /// <summary>The isolations beside the client, a ping's own <c>--isolation</c>: bare, a namespace, a container, gVisor.</summary>
    public static readonly string[] Host = ["none", "netns", "container", "sandbox"];

    /// <summary>gVisor's runtimes as docker/engine.sh registers them: its own network stack, or the host's.</summary>
    private const string Sandbox = "ipcbench-runsc", SandboxHostNetwork = "ipcbench-runsc-hostnet";

    /// <summary>Every pair, in the order of the isolation table's columns; the VM pair's server under <paramref name="vmRuntime"/>.</summary>
    public static IReadOnlyList<Pair> All(string vmRuntime) =>
    [
        new("shared-netns", "shared-netns", null, "runc"),
        new("bridge", "bridge", null, "runc"),
        new("vm-bridge", "bridge", "compose.kata.yaml", vmRuntime),
        new("sandbox-bridge", "bridge", "compose.sandbox.yaml", Sandbox),
        new("sandbox-hostnet-bridge", "bridge", "compose.sandbox.yaml", SandboxHostNetwork),
        new("volume", "volume", null, "runc"),
        new("sandbox-volume", "volume", "compose.sandbox.yaml", Sandbox),
        new("shared-ipc", "shared-ipc", null, "runc"),
        new("broker", "broker", null, "runc"),
    ];

    /// <summary>Every isolation's name, host ones first, as <c>--isolations</c> takes them.</summary>
    public static readonly string[] Isolations = [.. Host, .. All("").Select(p => p.Isolation)];

    /// <summary>The pairs across a network, and across a shared volume.</summary>
    private static readonly string[] Networks = ["shared-netns", "bridge", "vm-bridge", "sandbox-bridge", "sandbox-hostnet-bridge"],
        Volumes = ["volume", "sandbox-volume"];

    /// <summary>The pairs that carry <paramref name="t"/>, each with its address, or why it cannot.</summary>
    public static IEnumerable<PairStep> For(TransportListing t, IReadOnlyList<Pair> pairs)
    {
        Pair Named(string name) => pairs.Single(p => p.Name == name);
        if (t.Broker is { } broker)
        {
            string name = broker.EndsWith("-server", StringComparison.Ordinal) ? broker[..^"-server".Length] : broker;
            string option = t.AddressOptions.FirstOrDefault() ?? throw new InvalidOperationException($"{t.Name} names no address option for its broker");
            string address = t.MeetsOn == "broker"
                ? $"{t.Name}://169.254.77.20:{t.DefaultPort ?? throw new InvalidOperationException($"{t.Name} names no broker port")}/?{option}=ipcbench"
                : $"{t.Name}:///run/ipcbench/{name}.sock?{option}=ipcbench"; // the broker's socket, on the volume the three share
            return [new PairStep(Named("broker"), address, $"ipcbench-broker-{name}:bookworm", null)];
        }
        return t.MeetsOn switch
        {
            "shared-memory" => [new PairStep(Named("shared-ipc"), $"{t.Name}:///dev/shm/ipcbench-channel", null, null)],
            // The pin travels only in the server's READY line.
            "network" when t.TrustsOneCertificate => Networks.Select(n => new PairStep(Named(n), null, null,
                "its client trusts only the certificate its server makes at start, named (pin=) in the server's READY line, which a client container is not given")),
            "network" => Networks.Select(n => new PairStep(Named(n), "", null, null)),
            "pipe-name" => Volumes.Select(n => new PairStep(Named(n), $"{t.Name}://ipcbench", null, null)),
            "socket-file" => Volumes.Select(n => new PairStep(Named(n), $"{t.Name}:///run/ipcbench/s.sock", null, null)),
            _ => [], // in-process: nothing to cross
        };
    }
}
