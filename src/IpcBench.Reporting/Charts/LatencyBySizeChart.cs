using IpcBench.Reporting.Writers;

namespace IpcBench.Reporting.Charts;

/// <summary>
/// latency-by-size.svg: p50 (solid) and p99 (dashed) round-trip latency against payload size, one
/// colour per transport, log-scale latency. The gap between a transport's two lines is its tail.
/// </summary>
public static class LatencyBySizeChart
{
    public const string FileName = "latency-by-size.svg";

    public static string Render(RunResults run)
    {
        var layout = new RunLayout(run);
        var values = run.Cases.SelectMany(c => new[] { c.LatencyUs.P50, c.LatencyUs.P99 });
        var frame = new ChartFrame("Round-trip latency by payload size", ChartFrame.Subtitle(run), values);
        var svg = frame.Svg;
        frame.DrawYAxis();
        if (layout.Rows.Count == 0)
        {
            frame.Empty("no case ran");
            return svg.ToString();
        }

        double slot = (ChartFrame.Right - ChartFrame.Left) / layout.Sizes.Count;
        double X(int column) => ChartFrame.Left + (column + 0.5) * slot;
        for (int i = 0; i < layout.Sizes.Count; i++)
        {
            frame.XTick(X(i), Units.Size(layout.Sizes[i]));
        }
        frame.XTitle("payload size (request and reply each)");

        frame.LegendHeading("transport");
        for (int r = 0; r < layout.Rows.Count; r++)
        {
            var row = layout.Rows[r];
            string colour = Palette.Colour(r);
            var cells = layout.Sizes.Select((size, i) => (X: X(i), Case: layout.Case(row, size))).ToList();
            foreach (var (select, name, dash, hollow) in new (Func<CaseResult, double>, string, string?, bool)[]
                { (c => c.LatencyUs.P99, "p99", "6 4", true), (c => c.LatencyUs.P50, "p50", null, false) })
            {
                // A size that did not run breaks the line rather than bridging it.
                foreach (var run1 in Runs(cells))
                {
                    svg.Polyline(run1.Select(p => (p.X, frame.Y.Map(select(p.Case)))), colour, dash is null ? 2.25 : 1.75, dash);
                }
                foreach (var (x, c) in cells.Where(p => p.Case is not null))
                {
                    svg.Circle(x, frame.Y.Map(select(c!)), hollow ? 3.5 : 4, hollow ? "#ffffff" : colour, colour,
                        tooltip: $"{row.Label} at {Units.Size(c!.Size)}: {name} {Units.Us(select(c))} us");
                }
            }
            frame.LegendEntry(row.Label, colour);
        }
        frame.LegendGap();
        frame.LegendEntry("p50 (median)", Svg.Muted);
        frame.LegendEntry("p99", Svg.Muted, "6 4", hollowMarker: true);
        if (layout.CommonOptions.Length > 0)
        {
            frame.LegendGap();
            frame.LegendNote("every case: " + layout.CommonOptions.Replace("&", ", ", StringComparison.Ordinal));
        }
        return svg.ToString();
    }

    /// <summary>The stretches of consecutive sizes that have a case.</summary>
    private static IEnumerable<List<(double X, CaseResult Case)>> Runs(IEnumerable<(double X, CaseResult? Case)> cells)
    {
        var current = new List<(double X, CaseResult Case)>();
        foreach (var (x, c) in cells)
        {
            if (c is null)
            {
                if (current.Count > 0)
                {
                    yield return current;
                }
                current = [];
            }
            else
            {
                current.Add((x, c));
            }
        }
        if (current.Count > 0)
        {
            yield return current;
        }
    }
}
