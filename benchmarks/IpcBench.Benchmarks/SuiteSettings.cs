using IpcBench.Cli;
using IpcBench.Core;
using IpcBench.Core.Hosting;

namespace IpcBench.Benchmarks;

/// <summary>
/// The suite's knobs, read from environment variables so that BenchmarkDotNet's own command line
/// stays untouched, and so that its child processes (which inherit the environment) see the same.
/// </summary>
public static class SuiteSettings
{
    public const string TransportsVariable = "IPCBENCH_TRANSPORTS";
    public const string SizesVariable = "IPCBENCH_SIZES";
    public const string PlacementVariable = "IPCBENCH_PLACEMENT";
    public const string IoVariable = "IPCBENCH_IO";
    public const string ResultsVariable = "IPCBENCH_RESULTS";
    public const string LatencyDirVariable = "IPCBENCH_LATENCY_DIR";

    private static string? Env(string name) => Environment.GetEnvironmentVariable(name) is { Length: > 0 } v ? v : null;

    /// <summary>
    /// The transports asked for, each optionally with address options ("mmf?wait=spin"); default:
    /// every registered one with its defaults.
    /// </summary>
    public static IReadOnlyList<string> RequestedTransports =>
        Env(TransportsVariable) is { } list
            ? list.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)
            : TransportRegistry.Names.ToList();

    /// <summary>The transports that will run: requested and able to run here.</summary>
    public static IEnumerable<string> Transports => RequestedTransports.Where(t => Resolve(t).UnsupportedReason is null);

    /// <summary>The transport a suite entry names ("mmf?wait=spin" is mmf).</summary>
    public static ITransport Resolve(string entry) => TransportRegistry.Get(entry.Split('?', 2)[0]);

    /// <summary><paramref name="address"/> with the entry's own options and, where it applies, the suite's I/O mode.</summary>
    public static Uri WithOptions(Uri address, string entry) =>
        EndpointOptions.WithAll(IoFor(entry) is { } io ? EndpointOptions.With(address, "io", io) : address, EntryOptions(entry));

    /// <summary>The suite's I/O mode for an entry whose transport has I/O modes; null for the others.</summary>
    public static string? IoFor(string entry) => EndpointOptions.HasIoModes(Resolve(entry)) ? Io : null;

    public static IEnumerable<int> Sizes =>
        (Env(SizesVariable) ?? "1,1KB,10KB,100KB")
        .Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)
        .Select(s => Arguments.ParseSize(s, Core.Framing.LengthPrefix.DefaultMaxPayload)
            ?? throw new ArgumentException($"{SizesVariable}: '{s}' is not a size such as 1, 1KB or 100KB"));

    public static Placement Placement => Placements.Parse(Env(PlacementVariable) ?? "none");

    public static string Io => Env(IoVariable) ?? "sync";

    public static string? LatencyDirectory => Env(LatencyDirVariable);

    /// <summary>Where this run's reports go: IPCBENCH_RESULTS, else results/ at the repository root (as for 'ipcbench ping').</summary>
    public static string ResultsRoot() => Reporting.RunFolder.Root();

    /// <summary>The address options a suite entry carries ("mmf?wait=spin" carries "wait=spin").</summary>
    public static string EntryOptions(string entry) => entry.Contains('?') ? entry.Split('?', 2)[1] : "";
}
