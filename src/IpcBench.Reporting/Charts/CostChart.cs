using IpcBench.Reporting.Writers;

namespace IpcBench.Reporting.Charts;

/// <summary>
/// cost.svg: the trade-off users choose on, "fast but burns a core". A point per transport at one payload size: p50
/// latency up, CPU time per request (client and server together) across, both on log scales, coloured by family and
/// named beside the point. Down and left is cheap and fast; a spinning transport sits low and to the right.
/// </summary>
public static class CostChart
{
    public const string FileName = "cost.svg";

    private sealed record Point(string Label, CaseResult Case, double Cpu, bool ClientOnly);

    private static List<Point> Points(RunResults run, out int? size)
    {
        var steady = run with { Cases = RunDigest.Of(run, CaseKind.Steady) };
        var layout = new RunLayout(steady);
        int? charted = size = PercentileChart.ChartedSize(steady) ?? (layout.Sizes.Count > 0 ? layout.Sizes[0] : null);
        return charted is not int s ? [] : layout.Rows
            .Select(r => layout.Case(r, s) is { } c && RunDigest.CpuPerRequest(c) > 0 ? new Point(r.Label, c, RunDigest.CpuPerRequest(c), c.ServerCpuUsPerOp is null) : null)
            .OfType<Point>().ToList();
    }

    public static bool Applies(RunResults run) => Points(run, out _).Count > 1;

    public static string Render(RunResults run)
    {
        var points = Points(run, out int? size);
        string at = size is int s ? $" at {Units.Size(s)}" : "";
        var frame = ChartFrame.Single($"Latency against CPU per request{at}", ChartFrame.Subtitle(run), points.Select(p => p.Case.LatencyUs.P50),
            "p50 round-trip latency (log scale)");
        frame.DrawYAxis();
        var x = frame.LogXAxis(points.Select(p => p.Cpu), LogScale.LatencyLabel, "CPU time per request, client + server (log scale)");

        var labels = new LabelPlacer(frame.Plot);
        var ordered = points.OrderBy(p => p.Case.LatencyUs.P50).ToList();
        var marks = ordered.Select(p => (X: x.Map(p.Cpu), Y: frame.Y.Map(p.Case.LatencyUs.P50))).ToList();
        labels.AvoidPoints(marks);
        for (int i = 0; i < ordered.Count; i++)
        {
            var p = ordered[i];
            var style = SeriesStyle.ForFamily(p.Case.Family ?? RunLayout.OtherFamily);
            var (px, py) = marks[i];
            frame.Svg.Marker(style.Marker, px, py, 4.5, p.ClientOnly ? "#ffffff" : style.Colour, style.Colour,
                tooltip: $"{p.Label}: p50 {Units.Us(p.Case.LatencyUs.P50)} us, CPU {Units.Cpu(p.Cpu)} us per request"
                    + (p.ClientOnly ? " (the client's only: the server reported none)" : $" ({Units.Cpu(p.Case.ClientCpuUsPerOp)} client, {Units.Cpu(p.Case.ServerCpuUsPerOp)} server)"));
            var (lx, ly, leader) = labels.Place(px, py, p.Label.Length * 6.2);
            if (leader)
            {
                frame.Svg.Line(px, py, lx < px ? lx + p.Label.Length * 6.2 : lx, ly - 4, "#999999", 0.75);
            }
            frame.Svg.Text(lx, ly, p.Label, size: 11);
        }

        var families = new RunLayout(run with { Cases = [.. points.Select(p => p.Case)] }).Families.ToList();
        frame.LegendHeading("family");
        foreach (string family in families)
        {
            frame.LegendEntry(ChartFrame.FamilyTitle(family), SeriesStyle.ForFamily(family), line: false);
        }
        if (points.Any(p => p.ClientOnly))
        {
            frame.LegendGap();
            frame.LegendEntry("client CPU only", ChartFrame.Key, hollowMarker: true, line: false);
        }
        return frame.Svg.ToString();
    }
}
