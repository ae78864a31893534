namespace IpcBench.Harness.Hosting;

/// <summary>Where client and server run. On a small VM this decides small-message latency more than the transport.</summary>
public enum Placement
{
    /// <summary>No pinning: the OS scheduler decides (on 2 cores, results flip between same- and cross-core).</summary>
    None,
    /// <summary>Client and server pinned to one core: hand-offs without cross-core wake-ups.</summary>
    SameCore,
    /// <summary>Client and server pinned to two different cores: what spinning transports need.</summary>
    CrossCore,
}

public static class Placements
{
    public const string Choices = "none, same-core, cross-core";

    public static Placement Parse(string value) => value.ToLowerInvariant() switch
    {
        "none" => Placement.None,
        "same-core" => Placement.SameCore,
        "cross-core" => Placement.CrossCore,
        _ => throw new ArgumentException($"placement must be one of {Choices}, not '{value}'"),
    };

    public static string Name(this Placement placement) => placement switch
    {
        Placement.SameCore => "same-core",
        Placement.CrossCore => "cross-core",
        _ => "none",
    };

    /// <summary>
    /// The CPUs to pin client and server to, or nulls for <see cref="Placement.None"/>. A server elsewhere
    /// (<paramref name="serverLocal"/> false) is not ours to pin: the client needs one CPU, whatever the placement says of
    /// the pair (a container pair's cpusets place it, and a client container may be given just one).
    /// </summary>
    public static (int? Client, int? Server) Cpus(this Placement placement, bool serverLocal = true)
    {
        if (placement == Placement.None)
        {
            return (null, null);
        }
        var usable = CpuAffinity.UsableCpus();
        if (!serverLocal)
        {
            return (usable[0], null);
        }
        if (placement == Placement.CrossCore && usable.Count < 2)
        {
            throw new ArgumentException($"cross-core placement needs two CPUs; this process may use only {usable.Count}");
        }
        return placement == Placement.SameCore ? (usable[0], usable[0]) : (usable[0], usable[1]);
    }

    /// <summary>
    /// Same-core, the one placement whose round trips wait for no CPU to wake, so that its figures hold however the machine
    /// idles (a cross-CPU wake-up costs from a few to tens of microseconds on a VM, with whether the CPU was idle); none for a
    /// server elsewhere, whose CPU is not ours to pin; cross-core where a given option needs a CPU per side (its same-core advice).
    /// </summary>
    public static Placement DefaultFor(Contract.ITransport transport, Contract.Options.OptionValues options, bool serverLocal) =>
        !serverLocal ? Placement.None
        : Contract.Options.OptionValues.Of(transport).Any(o => options.IsGiven(o) && o.SameCoreAdvice.ContainsKey(options[o]))
          && CpuAffinity.UsableCpus().Count > 1 ? Placement.CrossCore
        : Placement.SameCore;

    /// <summary>How a result names its placement, e.g. "same-core (client cpu 0, server cpu 0)".</summary>
    public static string Describe(this Placement placement, bool serverLocal = true)
    {
        if (placement == Placement.None)
        {
            return "none";
        }
        var (client, server) = placement.Cpus(serverLocal);
        return serverLocal
            ? $"{placement.Name()} (client cpu {client}, server cpu {server})"
            : $"{placement.Name()} (client cpu {client}; remote server not pinned)";
    }
}
