using IpcBench.Reporting.Writers;

namespace IpcBench.Reporting.Charts;

/// <summary>
/// latency-by-size.svg: p50 (solid) and p99 (dashed, hollow markers) round-trip latency against payload size, a panel
/// per transport family on one log-scale latency axis, a colour and marker per transport. The gap between a
/// transport's two lines is its tail.
/// </summary>
public static class LatencyBySizeChart
{
    public const string FileName = "latency-by-size.svg";

    public static string Render(RunResults run)
    {
        run = RunDigest.SteadyState(run);
        var layout = new RunLayout(run);
        var families = layout.Families.ToList();
        string key = "solid line, filled marker: p50 (median) · dashed line, hollow marker: p99"
            + (layout.CommonOptions.Length > 0 ? " · every case: " + layout.CommonOptions.Replace("&", ", ", StringComparison.Ordinal) : "");
        return ChartFrame.Panels("Round-trip latency by payload size", ChartFrame.Subtitle(run), key, families,
            run.Cases.SelectMany(c => new[] { c.LatencyUs.P50, c.LatencyUs.P99 }), layout.Rows.Select(r => r.Label), "no case ran",
            (panel, family) => Draw(panel, layout, [.. layout.Rows.Where(r => r.Family == family)]));
    }

    private static void Draw(ChartFrame frame, RunLayout layout, IReadOnlyList<RunLayout.Row> rows)
    {
        var svg = frame.Svg;
        double slot = frame.Plot.Width / layout.Sizes.Count;
        double X(int column) => frame.Plot.Left + (column + 0.5) * slot;
        for (int i = 0; i < layout.Sizes.Count; i++)
        {
            frame.XTick(X(i), Units.Size(layout.Sizes[i]));
        }
        frame.XTitle("payload size (each way)");

        for (int r = 0; r < rows.Count; r++)
        {
            var row = rows[r];
            var style = SeriesStyle.For(r);
            var cells = layout.Sizes.Select((size, i) => (X: X(i), Case: layout.Case(row, size))).ToList();
            foreach (var (select, name, dash, hollow) in new (Func<CaseResult, double>, string, string?, bool)[]
                { (c => c.LatencyUs.P99, "p99", "6 4", true), (c => c.LatencyUs.P50, "p50", null, false) })
            {
                // A size that did not run breaks the line rather than bridging it.
                foreach (var stretch in Stretches(cells))
                {
                    svg.Polyline(stretch.Select(p => (p.X, frame.Y.Map(select(p.Case)))), style.Colour, dash is null ? 2.25 : 1.5, dash);
                }
                foreach (var (x, c) in cells.Where(p => p.Case is not null))
                {
                    svg.Marker(style.Marker, x, frame.Y.Map(select(c!)), hollow ? 3.5 : 4, hollow ? "#ffffff" : style.Colour, style.Colour,
                        tooltip: $"{row.Label} at {Units.Size(c!.Size)}: {name} {Units.Us(select(c))} us");
                }
            }
            frame.LegendEntry(row.Label, style);
        }
    }

    /// <summary>The stretches of consecutive sizes that have a case.</summary>
    private static IEnumerable<List<(double X, CaseResult Case)>> Stretches(IEnumerable<(double X, CaseResult? Case)> cells)
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
