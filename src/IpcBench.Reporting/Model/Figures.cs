using IpcBench.Core.Measurement;

namespace IpcBench.Reporting;

/// <summary>
/// Measurements as results.json stores them: rounded to what the clock can tell apart (a nanosecond
/// for latencies), so that files stay small and diffs stay readable.
/// </summary>
public static class Figures
{
    public static double Us(double us) => Math.Round(us, 3);

    public static LatencyFigures Latency(LatencySummary s) =>
        new(Us(s.MinUs), Us(s.P50Us), Us(s.P90Us), Us(s.P99Us), Us(s.P999Us), Us(s.MaxUs), Us(s.MeanUs));

    public static IReadOnlyList<PercentilePoint> Curve(IEnumerable<PercentilePoint> curve) =>
        curve.Select(p => new PercentilePoint(p.P, Us(p.Us))).ToArray();

    public static IReadOnlyList<double> Samples(IEnumerable<double> samplesUs) => samplesUs.Select(Us).ToArray();

    public static double PerSecond(double rate) => Math.Round(rate, 1);

    public static double? Bytes(double? bytes) => bytes is double b ? Math.Round(b, 2) : null;
}
