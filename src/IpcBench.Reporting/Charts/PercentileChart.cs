using IpcBench.Harness.Measurement;
using IpcBench.Reporting.Collecting;
using IpcBench.Reporting.Writers;

namespace IpcBench.Reporting.Charts;

/// <summary>
/// percentiles.svg: each transport's latency curve at one payload size, from the fastest request to the slowest, a
/// panel per transport family on one latency axis. The x axis is 1/(1-p) on a log scale, so that 50%, 90%, 99%, 99.9%
/// and 99.99% are evenly spaced and the tail, where transports differ most, gets most of the width.
/// </summary>
public static class PercentileChart
{
    public const string FileName = "percentiles.svg";

    /// <summary>Where the maximum is drawn: one decade past 99.99%, set apart since it has no percentile of its own.</summary>
    private const double MaxPosition = 1e5;

    private static readonly (double P, string Label)[] Ticks =
        [(50, "50"), (90, "90"), (99, "99"), (99.9, "99.9"), (99.99, "99.99"), (100, "max")];

    /// <summary>The size most cases share (the smallest of those), so that the chart compares the most transports.</summary>
    public static int? ChartedSize(RunResults run) =>
        run.Cases.Where(c => c.PercentilesUs.Count > 0).GroupBy(c => c.Size)
            .OrderByDescending(g => g.Count()).ThenBy(g => g.Key).Select(g => (int?)g.Key).FirstOrDefault();

    public static string Render(RunResults run)
    {
        run = RunDigest.SteadyState(run);
        var layout = new RunLayout(run);
        int? size = ChartedSize(run);
        var charted = layout.Rows.Select(row => (Row: row, Case: size is int s ? layout.Case(row, s) : null))
            .Where(r => r.Case is { PercentilesUs.Count: > 0 }).ToList();
        var families = charted.Select(r => r.Row.Family).Distinct().OrderBy(f => layout.Families.ToList().IndexOf(f)).ToList();
        string title = size is int sz ? $"Latency percentiles at {Units.Size(sz)}" : "Latency percentiles";
        long fewest = charted.Count == 0 ? 0 : charted.Min(r => r.Case!.Count), most = charted.Count == 0 ? 0 : charted.Max(r => r.Case!.Count);
        string key = "dashed: the last step, to the slowest request · "
            + (fewest == most ? $"{Units.Count(most)} requests per line" : $"{Units.Count(fewest)} to {Units.Count(most)} requests per line");
        return ChartFrame.Panels(title, ChartFrame.Subtitle(run), key, families, charted.SelectMany(r => r.Case!.PercentilesUs.Select(p => p.Us)),
            charted.Select(r => r.Row.Label), "no latency curve in this run",
            (panel, family) => Draw(panel, [.. charted.Where(r => r.Row.Family == family).Select(r => (r.Row, r.Case!))]));
    }

    private static void Draw(ChartFrame frame, IReadOnlyList<(RunLayout.Row Row, CaseResult Case)> lines)
    {
        var svg = frame.Svg;
        var x = new LogScale(1, MaxPosition, frame.Plot.Left, frame.Plot.Right);
        foreach (var (p, label) in Ticks)
        {
            frame.XTick(x.Map(Position(p)), label, dash: p == 100 ? "3 3" : null);
        }
        frame.XTitle("percentile, log scale of 1/(1-p); left edge: min");
        for (int i = 0; i < lines.Count; i++)
        {
            var (row, c) = lines[i];
            var style = SeriesStyle.For(i);
            var line = Curve(c).Select(p => (X: x.Map(Position(p.P)), Y: frame.Y.Map(p.Us))).ToList();
            if (line.Count >= 2)
            {
                svg.Polyline(line[..^1], style.Colour, 2.25);
                // The last step, to the maximum, is dashed: one request, not a share of them.
                svg.Polyline(line[^2..], style.Colour, 1.5, "4 3");
            }
            var points = c.PercentilesUs.OrderBy(p => p.P).Select(p => (p.P, p.Us, X: x.Map(Position(p.P)), Y: frame.Y.Map(p.Us))).ToList();
            foreach (var point in points)
            {
                svg.Marker(style.Marker, point.X, point.Y, 3, point.P == 100 ? "#ffffff" : style.Colour, style.Colour,
                    tooltip: $"{row.Label}: {(point.P == 100 ? "max" : $"p{Units.Raw(point.P)}")} {Units.Us(point.Us)} us");
            }
            frame.LegendEntry(row.Label, style);
        }
    }

    /// <summary>How many steps a line takes from p0 to p99.99, evenly spaced on the chart's axis.</summary>
    private const int CurveSteps = 48;

    /// <summary>
    /// The percentiles a case's line goes through, from p0 to its maximum: from its histogram (what latency.hlog holds), at
    /// <see cref="CurveSteps"/> points evenly spaced on the chart's axis, each within the exact minimum and maximum as the
    /// recorded points are (they are the same histogram's); the recorded points alone where a case has no histogram
    /// (runs from before 2026-11-27) or one that does not decode.
    /// </summary>
    public static IReadOnlyList<PercentilePoint> Curve(CaseResult c)
    {
        var recorded = c.PercentilesUs.OrderBy(p => p.P).ToList();
        if (recorded.Count < 2 || DecodedHistogram.TryDecode(c.LatencyHistogram) is not { TotalCount: > 0 } histogram)
        {
            return recorded;
        }
        double min = recorded[0].Us, max = recorded[^1].Us;
        var steps = Enumerable.Range(1, CurveSteps).Select(k => 100 * (1 - Math.Pow(10, -4.0 * k / CurveSteps)))
            .Select(p => new PercentilePoint(p, Math.Clamp(histogram.ValueAt(p) / 1000.0, min, max)));
        return [recorded[0], .. steps, recorded[^1]];
    }

    private static double Position(double p) => p >= 100 ? MaxPosition : Math.Min(1 / (1 - p / 100), MaxPosition / 10);
}
