namespace IpcBench.Reporting.Charts;

/// <summary>
/// What both charts share: the canvas, title and subtitle, the plot area with its log-scale latency
/// axis and grid, and the legend to the right of the plot.
/// </summary>
internal sealed class ChartFrame
{
    public const double Width = 880;
    public const double Height = 500;
    public const double Left = 78;
    public const double Right = 660;
    public const double Top = 78;
    public const double Bottom = 430;

    private const string GridMajor = "#d0d0d0";
    private const string GridMinor = "#eeeeee";

    private double _legendY = Top + 4;

    private readonly string _axisTitle;
    private readonly Func<double, string> _label;

    /// <param name="values">What the y axis must hold: latencies in microseconds, unless <paramref name="label"/> says otherwise.</param>
    public ChartFrame(string title, string subtitle, IEnumerable<double> values,
        string axisTitle = "round-trip latency (log scale)", Func<double, string>? label = null)
    {
        Svg = new Svg(Width, Height, title);
        Svg.Text(Left, 30, title, size: 17, bold: true);
        Svg.Text(Left, 52, subtitle, size: 12, fill: Svg.Muted);
        var (min, max) = LogScale.NiceBounds(values);
        Y = new LogScale(min, max, Bottom, Top);
        (_axisTitle, _label) = (axisTitle, label ?? LogScale.LatencyLabel);
    }

    public Svg Svg { get; }

    public LogScale Y { get; }

    /// <summary>The y grid and its labels, and the y axis title.</summary>
    public void DrawYAxis()
    {
        foreach (var (value, major, labelled) in Y.Ticks())
        {
            double y = Y.Map(value);
            Svg.Line(Left, y, Right, y, major || labelled ? GridMajor : GridMinor);
            if (labelled)
            {
                Svg.Text(Left - 8, y + 4, _label(value), size: 11, anchor: "end", fill: Svg.Muted);
            }
        }
        Svg.Text(20, (Top + Bottom) / 2, _axisTitle, size: 12, anchor: "middle", fill: Svg.Muted, rotate: -90);
        Svg.Line(Left, Top, Left, Bottom, "#888888");
        Svg.Line(Left, Bottom, Right, Bottom, "#888888");
    }

    /// <summary>A vertical grid line with its label under the plot.</summary>
    public void XTick(double x, string label, bool gridLine = true, string? dash = null)
    {
        if (gridLine)
        {
            Svg.Line(x, Top, x, Bottom, GridMajor, 1, dash);
        }
        Svg.Line(x, Bottom, x, Bottom + 5, "#888888");
        Svg.Text(x, Bottom + 20, label, size: 12, anchor: "middle");
    }

    public void XTitle(string title) => Svg.Text((Left + Right) / 2, Bottom + 48, title, size: 12, anchor: "middle", fill: Svg.Muted);

    public void LegendHeading(string text)
    {
        Svg.Text(Right + 24, _legendY + 4, text, size: 12, bold: true);
        _legendY += 22;
    }

    /// <summary>One legend entry: a line sample (with a marker) and its label.</summary>
    public void LegendEntry(string label, string colour, string? dash = null, bool hollowMarker = false)
    {
        double x = Right + 24;
        Svg.Line(x, _legendY, x + 28, _legendY, colour, 2.25, dash);
        Svg.Circle(x + 14, _legendY, 3.5, hollowMarker ? "#ffffff" : colour, colour);
        Svg.Text(x + 38, _legendY + 4, label, size: 12);
        _legendY += 20;
    }

    public void LegendGap() => _legendY += 10;

    public void LegendNote(string text)
    {
        Svg.Text(Right + 24, _legendY + 4, text, size: 11, fill: Svg.Muted);
        _legendY += 17;
    }

    /// <summary>Said in the middle of the plot when there is nothing to draw.</summary>
    public void Empty(string text) => Svg.Text((Left + Right) / 2, (Top + Bottom) / 2, text, size: 14, anchor: "middle", fill: Svg.Muted);

    /// <summary>The run named under the title: what it was, where it ran.</summary>
    public static string Subtitle(RunResults run) =>
        $"{run.Id} · placement {run.Environment.Placement} · {run.Environment.Isolation} · "
        + $"{run.Environment.CpuModel ?? "unknown CPU"}, {run.Environment.LogicalCpus} CPUs";
}
