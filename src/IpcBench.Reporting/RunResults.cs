using IpcBench.Harness.Hosting;
using IpcBench.Reporting.Collecting;

namespace IpcBench.Reporting;

/// <summary>
/// One run of <c>ipcbench ping</c> or of the benchmark suite, as results.json holds it: what ran,
/// where, and every case's figures. The format is documented in docs/reports.md; a change that an
/// older reader would misread gets a new <see cref="Schema"/> version.
/// </summary>
public sealed record RunResults
{
    public const string CurrentSchema = "ipcbench-results/1";

    public required string Schema { get; init; }

    /// <summary>The UTC start time and the kind, e.g. "20261122-005250-bench".</summary>
    public required string Id { get; init; }

    /// <summary>"ping" or "bench".</summary>
    public required string Kind { get; init; }

    public required DateTimeOffset StartedAt { get; init; }

    /// <summary>The commit checked out where the run started (null: not in a git work tree, or no git).</summary>
    public string? GitCommit { get; init; }

    public required string CommandLine { get; init; }

    public required RunEnvironment Environment { get; init; }

    public required IReadOnlyList<CaseResult> Cases { get; init; }

    /// <summary>Cases that were asked for and could not run here, with the reason.</summary>
    public required IReadOnlyList<SkippedCase> Skipped { get; init; }
}

/// <summary>The machine and the settings of a run: what a figure cannot be quoted without.</summary>
public sealed record RunEnvironment
{
    /// <summary>The OS as .NET describes it, e.g. "Debian GNU/Linux 12 (bookworm)".</summary>
    public required string Os { get; init; }

    public string? Kernel { get; init; }

    public string? CpuModel { get; init; }

    public required int LogicalCpus { get; init; }

    /// <summary>The .NET runtime, e.g. ".NET 10.0.12".</summary>
    public required string Runtime { get; init; }

    /// <summary>The kernel's clock source (tsc, kvm-clock, hpet ...): a slow one adds to every timing.</summary>
    public string? Clocksource { get; init; }

    /// <summary>
    /// The CPUs the measuring process may run on and its cgroup's CPU quota, e.g. "cpus 0; quota 1.5 CPUs": what a
    /// container's cpuset and CPU limit leave it (null where not readable).
    /// </summary>
    public string? CpuLimits { get; init; }

    /// <summary>"container", "namespace", "bare" or "unknown".</summary>
    public required string Isolation { get; init; }

    /// <summary>What <see cref="Isolation"/> was concluded from.</summary>
    public string? IsolationEvidence { get; init; }

    /// <summary>Where client and server ran, e.g. "same-core (client cpu 0, server cpu 0)".</summary>
    public required string Placement { get; init; }

    /// <summary>Every option that shaped the run, by name.</summary>
    public required IReadOnlyDictionary<string, string> Options { get; init; }

    /// <summary>What waking a sleeping thread cost on this machine during the run (null: a run from before it was measured).</summary>
    public WakeUpFigures? WakeUp { get; init; }
}

/// <summary>
/// How this machine hands the turn to a sleeping thread, one way, in microseconds (<see cref="Harness.Hosting.WakeUpProbe"/>),
/// and the idle settings behind it. A blocking transport's round trip pays two hand-offs: on one CPU (placement
/// same-core) a context switch each, across CPUs (none, cross-core) a wake-up of the other CPU each, whose cost depends
/// on whether that CPU was idle. A figure is null where it could not be measured (not Linux, one CPU).
/// </summary>
public sealed record WakeUpFigures
{
    /// <summary>Both threads on one CPU: a context switch, no CPU woken.</summary>
    public double? OneCpuUs { get; init; }

    /// <summary>Across CPUs, with nothing else running: the other CPU went idle and is woken.</summary>
    public double? CrossCpuIdleUs { get; init; }

    /// <summary>Across CPUs, each kept awake by a SCHED_IDLE busy loop (what idle=poll or a latency profile does).</summary>
    public double? CrossCpuAwakeUs { get; init; }

    /// <summary>The cpuidle driver ("haltpoll", "intel_idle", "none": the architecture's halt) and governor ("menu", "haltpoll").</summary>
    public string? CpuidleDriver { get; init; }

    public string? CpuidleGovernor { get; init; }

    /// <summary>haltpoll's settings where its module is there: "guest_halt_poll_ns=200000, guest_halt_poll_grow=2 ...".</summary>
    public string? Haltpoll { get; init; }

    /// <summary>
    /// How much a round trip across CPUs can move with how the machine idles: two hand-offs at the dearer of idle and
    /// kept awake, less two on one CPU (null: not measured). Differences under it between cases that cross CPUs rank nothing.
    /// </summary>
    [System.Text.Json.Serialization.JsonIgnore]
    public double? RoundTripSwingUs =>
        OneCpuUs is double one && CrossCpuIdleUs is double idle && CrossCpuAwakeUs is double awake
            ? Math.Max(0, 2 * (Math.Max(idle, awake) - one)) : null;
}

/// <summary>One transport, with its options, at one payload size.</summary>
public sealed record CaseResult
{
    public required string Transport { get; init; }

    /// <summary>The transport's family ("sockets", "local", "messaging", "rpc"), which the charts group by (null: a run from before families were recorded).</summary>
    public string? Family { get; init; }

    /// <summary>Address options as a query string, keys sorted: "io=sync&amp;wait=spin".</summary>
    public required string Options { get; init; }

    /// <summary>Request (and echo reply) payload in bytes.</summary>
    public required int Size { get; init; }

    /// <summary>"none", "same-core" or "cross-core".</summary>
    public required string Placement { get; init; }

    /// <summary>The requests the latency figures are over.</summary>
    public required long Count { get; init; }

    /// <summary>Requests that got no reply in time.</summary>
    public required long Errors { get; init; }

    public required LatencyFigures LatencyUs { get; init; }

    /// <summary>Round trips per second over every client (achieved, for an open loop).</summary>
    public required double RequestsPerSecond { get; init; }

    /// <summary>Payload megabytes (10^6 B) per second, requests and replies together.</summary>
    public double? MegabytesPerSecond { get; init; }

    /// <summary>Each client's requests per second, when there were several: the spread between the fastest and the slowest.</summary>
    public IReadOnlyList<double>? ClientRequestsPerSecond { get; init; }

    /// <summary>An open loop's offered rate, requests per second (null: a closed loop).</summary>
    public double? OfferedRate { get; init; }

    /// <summary>Whether an open loop achieved at least 95% of its offered rate (null: a closed loop). When not, its latencies are a growing queue's.</summary>
    public bool? Sustained { get; init; }

    /// <summary>The client process's CPU time per request, user + system, every thread.</summary>
    public required double ClientCpuUsPerOp { get; init; }

    /// <summary>The server process's, as the server reported it (null: it did not).</summary>
    public double? ServerCpuUsPerOp { get; init; }

    /// <summary>Managed bytes the client allocated per request (null: not measured).</summary>
    public double? AllocatedBytesPerOp { get; init; }

    /// <summary>What sets this case apart (its transport, options, size and placement, read as one typed key).</summary>
    [System.Text.Json.Serialization.JsonIgnore]
    public CaseKey Key => CaseKey.Of(this);

    /// <summary>The latency curve: percentiles 0, 50, 75, 90, 95, 99, 99.5, 99.9, 99.99 and 100.</summary>
    public required IReadOnlyList<Harness.Measurement.PercentilePoint> PercentilesUs { get; init; }

    /// <summary>A uniform random subsample (fixed seed) of up to 2,000 per-request latencies, for statistical tests.</summary>
    public required IReadOnlyList<double> SamplesUs { get; init; }
}

/// <summary>Per-request round-trip latency in microseconds; percentiles are nearest-rank over requests.</summary>
public sealed record LatencyFigures(double Min, double P50, double P90, double P99, double P999, double Max, double Mean);

/// <param name="Size">The payload size, or null when no size of this transport ran.</param>
public sealed record SkippedCase(string Transport, string Options, int? Size, string Reason)
{
    /// <summary>The isolation it could not run in, as a case's key reads it; null beside its client.</summary>
    [System.Text.Json.Serialization.JsonIgnore]
    public string? Isolation => CaseKey.Parse(Transport, Options, Size ?? 0, placement: "").Isolation;
}
