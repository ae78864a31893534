using IpcBench.Reporting.Charts;
using IpcBench.Reporting.Writers;

namespace IpcBench.Reporting.History;

/// <summary>
/// One case over the history: a point per run, left to right in the order measured, labelled by commit; its launches'
/// median p50 as a marker, its 95% interval as a whisker. A point a gate called slower is red, with the change above it;
/// a dashed line before a point says the machine or a setting changed there (a figure across it is not a regression).
/// </summary>
public static class HistoryChart
{
    private const string Flagged = "#C0392B";

    /// <summary>A commit label takes about this much room at 12 px: fewer are labelled where more would collide.</summary>
    private const double LabelWidth = 64;

    public static string Render(RunHistory history, HistorySeries series)
    {
        var values = series.Points.SelectMany(p => p.Interval is { } i ? new[] { p.Median, i.Low, i.High } : [p.Median]);
        var frame = ChartFrame.Single($"{series.Label}: p50 over commits", Subtitle(history), values);
        frame.DrawYAxis();
        var plot = frame.Plot;
        int n = history.Points.Count;
        double X(int i) => n == 1 ? (plot.Left + plot.Right) / 2 : plot.Left + 30 + i * (plot.Width - 60) / (n - 1);
        int every = (int)Math.Ceiling(LabelWidth / Math.Max(1, (plot.Width - 60) / Math.Max(1, n - 1)));
        for (int i = 0; i < n; i++)
        {
            if (i % every == 0 || i == n - 1)
            {
                frame.XTick(X(i), history.Points[i].ShortCommit);
            }
            if (history.Points[i].Changes.Count > 0)
            {
                double x = i == 0 ? X(i) : (X(i - 1) + X(i)) / 2;
                frame.Svg.Line(x, plot.Top, x, plot.Bottom, Svg.Muted, 1.25, "6 4");
                frame.Svg.Text(x + 4, plot.Top + 12, string.Join("; ", history.Points[i].Changes.Select(d => $"{d.Key} changed")), size: 10, fill: Svg.Muted);
            }
        }
        frame.XTitle("commit, in the order measured");

        var style = SeriesStyle.For(0);
        frame.Svg.Polyline(series.Points.Select(p => (X(p.Point), frame.Y.Map(p.Median))), style.Colour, 1.5);
        foreach (var p in series.Points)
        {
            double x = X(p.Point);
            string colour = p.Verdict?.Slower == true ? Flagged : style.Colour;
            if (p.Interval is { } interval)
            {
                frame.Svg.Line(x, frame.Y.Map(interval.Low), x, frame.Y.Map(interval.High), colour, 1.5);
                frame.Svg.Line(x - 4, frame.Y.Map(interval.Low), x + 4, frame.Y.Map(interval.Low), colour, 1.5);
                frame.Svg.Line(x - 4, frame.Y.Map(interval.High), x + 4, frame.Y.Map(interval.High), colour, 1.5);
            }
            frame.Svg.Marker(p.Verdict?.Slower == true ? MarkerShape.Diamond : style.Marker, x, frame.Y.Map(p.Median),
                p.Verdict?.Slower == true ? 6 : 4, colour, colour, Tooltip(history.Points[p.Point], p));
            if (p.Verdict?.Slower == true)
            {
                double top = frame.Y.Map(p.Interval?.High ?? p.Median) - 10;
                string change = p.Verdict.P50Change is double c ? " " + Units.Change(c) : "";
                frame.Svg.Text(x, top, $"slower{change}", size: 11, anchor: "middle", fill: Flagged, bold: true);
            }
        }

        frame.LegendEntry("median p50 of a run", style, line: true);
        frame.LegendEntry("whisker: 95% interval", ChartFrame.Key, line: false);
        frame.LegendEntry("gate said: slower", new SeriesStyle(Flagged, MarkerShape.Diamond), line: false);
        return frame.Svg.ToString();
    }

    private static string Subtitle(RunHistory history) =>
        $"{history.Points.Count} run(s), {history.Points[0].Run.StartedAt:yyyy-MM-dd} to {history.Points[^1].Run.StartedAt:yyyy-MM-dd} · "
        + $"placement {history.Points[^1].Run.Environment.Placement} · {history.Points[^1].Run.Environment.CpuModel ?? "unknown CPU"}";

    private static string Tooltip(HistoryPoint point, SeriesPoint p)
    {
        string interval = p.Interval is { } i ? $", 95% interval {Units.Us(i.Low)}-{Units.Us(i.High)} us" : "";
        string verdict = p.Verdict is { } v ? $"; the gate: {v.Verdict}{(v.P50Change is double c ? " " + Units.Change(c) : "")}" : "";
        return $"{point.Run.GitCommit ?? "no commit"} ({point.Run.StartedAt:yyyy-MM-dd HH:mm} UTC): p50 {Units.Us(p.Median)} us over {p.Launches} launch(es){interval}{verdict}";
    }
}
