namespace IpcBench.Reporting.Charts;

/// <summary>One bar: its length (a p50), and a whisker from its end to <paramref name="WhiskerHigh"/> (a p99), or from <paramref name="WhiskerLow"/> (an interval).</summary>
internal sealed record Bar(double Length, double WhiskerHigh, SeriesStyle Style, string Tooltip, double? WhiskerLow = null);

/// <summary>Bars under one label (a transport; a transport at a size), one per thing compared (an isolation).</summary>
internal sealed record BarGroup(string Label, IReadOnlyList<Bar> Bars);

/// <summary>
/// Horizontal bars on a log-scale latency axis, labelled where they start: every bar is named on its own line, so that
/// any number of transports stay readable. Each bar is a p50; the thin whisker past its end reaches the p99, or spans its interval.
/// </summary>
internal static class BarChart
{
    private const double Width = 880;
    private const double Left = 230;
    private const double Right = 840;
    private const double Top = 100;
    private const double BarHeight = 13;
    private const double BarGap = 3;
    private const double GroupGap = 9;

    public static string Render(string title, string subtitle, IReadOnlyList<BarGroup> groups, IReadOnlyList<(string Label, SeriesStyle Style)> legend,
        string axisTitle)
    {
        double plotHeight = Math.Max(60, groups.Sum(g => g.Bars.Count * (BarHeight + BarGap) + GroupGap));
        double bottom = Top + plotHeight;
        var svg = ChartFrame.Canvas(Width, bottom + 60, title, subtitle);
        double legendX = 24;
        foreach (var (label, style) in legend)
        {
            svg.Rect(legendX, 66, 12, 12, style.Colour);
            svg.Text(legendX + 17, 76, label, size: 12);
            legendX += 30 + label.Length * 7;
        }

        var (min, max) = LogScale.NiceBounds(groups.SelectMany(g => g.Bars).SelectMany(b => new[] { b.Length, b.WhiskerHigh, b.WhiskerLow ?? b.Length }));
        var x = new LogScale(min, max, Left, Right);
        foreach (var (value, major, labelled) in x.Ticks())
        {
            svg.Line(x.Map(value), Top - 4, x.Map(value), bottom, major || labelled ? "#d0d0d0" : "#eeeeee");
            if (labelled)
            {
                svg.Text(x.Map(value), bottom + 18, LogScale.LatencyLabel(value), size: 11, anchor: "middle", fill: Svg.Muted);
            }
        }
        svg.Text((Left + Right) / 2, bottom + 42, axisTitle, size: 12, anchor: "middle", fill: Svg.Muted);

        double y = Top;
        foreach (var group in groups)
        {
            double groupTop = y;
            foreach (var bar in group.Bars)
            {
                double end = x.Map(bar.Length), whisker = x.Map(Math.Max(bar.Length, bar.WhiskerHigh)), mid = y + BarHeight / 2;
                svg.Rect(Left, y, Math.Max(1, end - Left), BarHeight, bar.Style.Colour, tooltip: bar.Tooltip);
                if (bar.WhiskerLow is double low)
                {
                    // An interval around the bar's end: dark, so that it shows over the bar as past it.
                    double from = x.Map(Math.Min(low, bar.Length));
                    svg.Line(from, mid, whisker, mid, Svg.Ink, 1.5);
                    svg.Line(from, y + 2, from, y + BarHeight - 2, Svg.Ink, 1.5);
                    svg.Line(whisker, y + 2, whisker, y + BarHeight - 2, Svg.Ink, 1.5);
                }
                else
                {
                    svg.Line(end, mid, whisker, mid, bar.Style.Colour, 1.5);
                    svg.Line(whisker, y + 2, whisker, y + BarHeight - 2, bar.Style.Colour, 1.5);
                }
                y += BarHeight + BarGap;
            }
            svg.Text(Left - 8, (groupTop + y - BarGap) / 2 + 4, group.Label, size: 12, anchor: "end");
            y += GroupGap;
        }
        svg.Line(Left, Top - 4, Left, bottom, "#888888");
        return svg.ToString();
    }
}
