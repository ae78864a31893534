using IpcBench.Reporting.Writers;

namespace IpcBench.Reporting.Charts;

/// <summary>
/// ranking-SIZE.svg, one a ranking (<see cref="Ranking"/>): each transport's median p50 as a bar, fastest at the top,
/// its 95% interval as a whisker, and its groups (what the run cannot tell from the fastest of each) told apart by
/// colour, two taking turns.
/// </summary>
public static class RankingChart
{
    public static IReadOnlyList<(string FileName, string Svg)> Render(RunResults run) =>
        [.. Ranking.Of(run).Select(r => (r.ChartFileName, Render(run, r)))];

    private static string Render(RunResults run, RankingAt ranking)
    {
        var groups = ranking.Cases.Select(r =>
        {
            string label = r.Group > 0 ? $"{r.Label} (group {r.Group})" : r.Label;
            string interval = r.Interval is { } i ? $", 95% interval {Units.Us(i.Low)}-{Units.Us(i.High)} us" : "";
            string tooltip = $"{r.Label}: p50 {Units.Us(r.Median)} us over {r.Case.Launches.Count} launch(es){interval}";
            return new BarGroup(label, [new Bar(r.Median, r.Interval?.High ?? r.Median, SeriesStyle.For(Math.Max(0, r.Group - 1) % 2), tooltip,
                r.Interval?.Low)]);
        }).ToList();
        string axis = ranking.HasIntervals
            ? "median p50 over the launches (bar) and its 95% interval (whisker), us (log scale)"
            : "p50 of one launch a case, us (log scale): no interval";
        return BarChart.Render(ranking.Title, ChartFrame.Subtitle(run), groups, [], axis);
    }
}
