using IpcBench.Harness.Hosting;
using IpcBench.Harness.Measurement;

namespace IpcBench.Harness.Results;

/// <summary>
/// Measurements as results.json stores them: rounded to what the clock can tell apart (a nanosecond
/// for latencies), so that files stay small and diffs stay readable.
/// </summary>
public static class Figures
{
    public static double Us(double us) => Math.Round(us, 3);

    /// <summary>"sockets", "local", "messaging", "rpc": how results.json names a <see cref="Contract.TransportFamily"/>.</summary>
    public static string FamilyName(Contract.TransportFamily family) => family.ToString().ToLowerInvariant();

    /// <summary>A measured case as results.json holds it: the one place where a loop's result becomes a case's figures.</summary>
    public static CaseResult Case(CaseKey key, Contract.TransportFamily family, LoopResult r) => new(key)
    {
        Family = FamilyName(family),
        Count = r.Latency.Count,
        Errors = r.Errors,
        LatencyUs = new(Us(r.Latency.MinUs), Us(r.Latency.P50Us), Us(r.Latency.P90Us), Us(r.Latency.P99Us), Us(r.Latency.P999Us), Us(r.Latency.MaxUs),
            Us(r.Latency.MeanUs)),
        RequestsPerSecond = PerSecond(r.RequestsPerSecond),
        MegabytesPerSecond = Megabytes(r.RequestsPerSecond, key.Size, key.ReplySize ?? key.Size),
        ClientRequestsPerSecond = r.ClientRequestsPerSecond.Count > 1 ? r.ClientRequestsPerSecond.Select(PerSecond).ToArray() : null,
        OfferedRate = r.OfferedRate is double offered ? PerSecond(offered) : null,
        Sustained = r.Sustained,
        ClientCpuUsPerOp = Us(r.Cost.CpuUsPerOp),
        ServerCpuUsPerOp = r.ServerCpuUsPerOp is double s ? Us(s) : null,
        AllocatedBytesPerOp = Bytes(r.Cost.AllocatedBytesPerOp),
        Anatomy = r.Cost.Anatomy is null && r.ServerAnatomy is null ? null : new(r.Cost.Anatomy, r.ServerAnatomy),
        PercentilesUs = [.. r.Curve.Select(p => new PercentilePoint(p.P, Us(p.Us)))],
        SamplesUs = [.. r.SamplesUs.Select(Us)],
        LatencyHistogram = r.Recorder?.EncodedNanoseconds(),
        WarmUp = r.WarmUpSpent is { } w ? new(Milliseconds(w.Asked), Milliseconds(w.JitWait), w.JitSettled) : null,
    };

    private static double Milliseconds(TimeSpan time) => Math.Round(time.TotalMilliseconds, 1);

    public static double PerSecond(double rate) => Math.Round(rate, 1);

    /// <summary>Payload megabytes (10^6 B) per second at <paramref name="rate"/> requests per second, requests and replies together.</summary>
    public static double Megabytes(double rate, int requestSize, int replySize) => Math.Round(rate * (requestSize + replySize) / 1e6, 3);

    public static double? Bytes(double? bytes) => bytes is double b ? Math.Round(b, 2) : null;
}
