using IpcBench.Harness.Hosting;
using IpcBench.Harness.Results;
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

/// <param name="Size">The payload size, or null when no size of this transport ran.</param>
public sealed record SkippedCase(string Transport, string Options, int? Size, string Reason)
{
    /// <summary>The isolation it could not run in, as a case's key reads it; null beside its client.</summary>
    [System.Text.Json.Serialization.JsonIgnore]
    public string? Isolation => CaseKey.Parse(Transport, Options, Size ?? 0, placement: "").Isolation;
}
