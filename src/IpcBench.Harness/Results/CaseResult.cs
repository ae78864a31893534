using System.Text.Json.Serialization;
using IpcBench.Harness.Measurement;

namespace IpcBench.Harness.Results;

/// <summary>
/// One measured case: its key and its figures. The key is kept typed; results.json spells it as four fields (transport,
/// options, size, placement), which are written from the key and read back into one (<see cref="CaseKey.Parse"/>).
/// </summary>
public sealed record CaseResult
{
    /// <summary>A case of <paramref name="key"/>, its figures to be given.</summary>
    public CaseResult(CaseKey key) => Key = key;

    /// <summary>A case as results.json spells its key.</summary>
    [JsonConstructor]
    public CaseResult(string transport, string options, int size, string placement) => Key = CaseKey.Parse(transport, options, size, placement);

    /// <summary>What sets this case apart from every other.</summary>
    [JsonIgnore]
    public CaseKey Key { get; init; }

    public string Transport => Key.Transport;

    /// <summary>The transport's family ("sockets", "local", "messaging", "rpc"), which the charts group by (null: a run from before families were recorded).</summary>
    public string? Family { get; init; }

    /// <summary>The key's options as a query string, keys sorted: "io=sync&amp;wait=spin" (<see cref="CaseKey.Options"/>).</summary>
    public string Options => Key.Options;

    /// <summary>Request (and echo reply) payload in bytes.</summary>
    public int Size => Key.Size;

    /// <summary>"none", "same-core" or "cross-core".</summary>
    public string Placement => Key.Placement;

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

    /// <summary>Where a request's time and work went on each side (null: not measured, as in runs from before 2026-11-27).</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public Anatomy? Anatomy { get; init; }

    /// <summary>How long the case's warm-up took and whether the JIT was done at its end (null: none was asked for, or a run from before 2026-11-29).</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public WarmUpFigures? WarmUp { get; init; }

    /// <summary>The latency curve: percentiles 0, 50, 75, 90, 95, 99, 99.5, 99.9, 99.99 and 100.</summary>
    public required IReadOnlyList<PercentilePoint> PercentilesUs { get; init; }

    /// <summary>
    /// Every request's round trip as HdrHistogram's compressed histogram, base64, in nanoseconds (null: not recorded, as in
    /// runs from before 2026-11-27): what the run folder's <c>latency.hlog</c> holds, a line a case.
    /// </summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public string? LatencyHistogram { get; init; }

    /// <summary>A uniform random subsample (fixed seed) of up to 2,000 per-request latencies, for statistical tests.</summary>
    public required IReadOnlyList<double> SamplesUs { get; init; }

    /// <summary>
    /// The p50 of each process launch these figures stand for, when rounds were read as one run (compare's pooling); null
    /// for the figures of one launch, whose p50 is <see cref="LatencyFigures.P50"/>. Never written: each round's file has its own.
    /// </summary>
    [JsonIgnore]
    public IReadOnlyList<double>? LaunchP50sUs { get; init; }

    /// <summary>The p50 of every launch these figures stand for: one, or the pooled rounds'.</summary>
    [JsonIgnore]
    public IReadOnlyList<double> Launches => LaunchP50sUs ?? [LatencyUs.P50];
}

/// <param name="AskedMs">The warm-up asked for (its requests or its time), in milliseconds.</param>
/// <param name="JitWaitMs">Then the wait for the JIT, the client's and the server's, in milliseconds.</param>
/// <param name="JitSettled">Whether the JIT was done at its end; false: the wait ran to its bound, and the case was measured with the JIT still at work.</param>
public sealed record WarmUpFigures(double AskedMs, double JitWaitMs, bool JitSettled);

/// <summary>Per-request round-trip latency in microseconds; percentiles are nearest-rank over requests.</summary>
public sealed record LatencyFigures(double Min, double P50, double P90, double P99, double P999, double Max, double Mean);

