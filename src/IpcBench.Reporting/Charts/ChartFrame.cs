namespace IpcBench.Reporting.Charts;

/// <summary>A plot area's edges, in pixels.</summary>
internal readonly record struct Box(double Left, double Top, double Right, double Bottom)
{
    public double Width => Right - Left;
}

/// <summary>
/// What every chart shares: the canvas with its title and subtitle, and one plot area (or a panel of several) with
/// its log-scale y axis, grid and legend to its right. A chart of many transports is drawn as panels, one per family,
/// on one y scale: each panel then holds a handful of lines that its legend tells apart.
/// </summary>
internal sealed class ChartFrame
{
    public const double Width = 880;
    public const double Height = 500;

    /// <summary>A panel of <see cref="Panels"/>, two to a row: its plot, and right of it a legend at least this wide, wider for longer labels.</summary>
    private const double PanelPlotWidth = 310;
    private const double PanelLegendWidth = 150;
    private const double PanelHeight = 330;

    /// <summary>About a character's width at the legend's 11 px (labels are mostly lower case): what a label needs.</summary>
    private const double LegendCharWidth = 6.4;
    private const double Header = 84;

    private const string GridMajor = "#d0d0d0";
    private const string GridMinor = "#eeeeee";

    private readonly string _axisTitle;
    private readonly Func<double, string> _label;
    private readonly double _fontSize;
    private double _legendY;

    private ChartFrame(Svg svg, Box plot, LogScale y, string axisTitle, Func<double, string> label, double fontSize)
    {
        (Svg, Plot, Y, _axisTitle, _label, _fontSize) = (svg, plot, y, axisTitle, label, fontSize);
        _legendY = plot.Top + 4;
    }

    public Svg Svg { get; }

    public Box Plot { get; }

    public LogScale Y { get; }

    private double LegendX => Plot.Right + 18;

    /// <summary>One chart on the whole canvas.</summary>
    /// <param name="values">What the y axis must hold: latencies in microseconds, unless <paramref name="label"/> says otherwise.</param>
    public static ChartFrame Single(string title, string subtitle, IEnumerable<double> values,
        string axisTitle = "round-trip latency (log scale)", Func<double, string>? label = null)
    {
        var svg = Canvas(Width, Height, title, subtitle);
        var plot = new Box(78, 78, 660, 430);
        var (min, max) = LogScale.NiceBounds(values);
        return new ChartFrame(svg, plot, new LogScale(min, max, plot.Bottom, plot.Top), axisTitle, label ?? LogScale.LatencyLabel, 12);
    }

    /// <summary>
    /// A chart of a panel per family, two to a row, every one on the same y scale so that panels compare at a glance:
    /// each panel's y axis, then <paramref name="draw"/> with the panel and its family. With no family, one panel that
    /// says <paramref name="empty"/>.
    /// </summary>
    /// <param name="key">A line under the subtitle that says what every panel's lines and markers mean.</param>
    /// <param name="legendLabels">Every label the legends will show: the legends are made wide enough for the longest.</param>
    public static string Panels(string title, string subtitle, string key, IReadOnlyList<string> families, IEnumerable<double> values,
        IEnumerable<string> legendLabels, string empty, Action<ChartFrame, string> draw,
        string axisTitle = "round-trip latency (log scale)", Func<double, string>? label = null)
    {
        var panels = Panels(title, subtitle, key, families.Count == 0 ? [""] : [.. families.Select(FamilyTitle)], values, legendLabels, axisTitle, label);
        if (families.Count == 0)
        {
            panels[0].DrawYAxis();
            panels[0].Empty(empty);
        }
        for (int f = 0; f < families.Count; f++)
        {
            panels[f].DrawYAxis();
            draw(panels[f], families[f]);
        }
        return panels[0].Svg.ToString();
    }

    private static List<ChartFrame> Panels(string title, string subtitle, string key, IReadOnlyList<string> panelTitles, IEnumerable<double> values,
        IEnumerable<string> legendLabels, string axisTitle, Func<double, string>? label)
    {
        int columns = Math.Clamp(panelTitles.Count, 1, 2);
        int rows = Math.Max(1, (panelTitles.Count + 1) / 2);
        double legendWidth = Math.Ceiling(Math.Max(PanelLegendWidth, 44 + LegendCharWidth * legendLabels.Select(l => l.Length).DefaultIfEmpty(0).Max()));
        double panelWidth = PanelPlotWidth + legendWidth;
        var svg = Canvas(Math.Max(columns * panelWidth, 560), Header + rows * PanelHeight + 10, title, subtitle);
        svg.Text(24, 72, key, size: 12);
        var (min, max) = LogScale.NiceBounds(values);
        var frames = new List<ChartFrame>();
        for (int i = 0; i < panelTitles.Count; i++)
        {
            double x0 = i % 2 * panelWidth, y0 = Header + i / 2 * PanelHeight;
            var plot = new Box(x0 + 68, y0 + 36, x0 + panelWidth - legendWidth, y0 + PanelHeight - 58);
            svg.Text(plot.Left, y0 + 22, panelTitles[i], size: 14, bold: true);
            frames.Add(new ChartFrame(svg, plot, new LogScale(min, max, plot.Bottom, plot.Top), axisTitle, label ?? LogScale.LatencyLabel, 11));
        }
        return frames;
    }

    /// <summary>A chart's canvas with its title and subtitle.</summary>
    public static Svg Canvas(double width, double height, string title, string subtitle)
    {
        var svg = new Svg(width, height, title);
        svg.Text(24, 30, title, size: 17, bold: true);
        svg.Text(24, 52, subtitle, size: 12, fill: Svg.Muted);
        return svg;
    }

    /// <summary>The y grid and its labels, and the y axis title.</summary>
    public void DrawYAxis()
    {
        foreach (var (value, major, labelled) in Y.Ticks())
        {
            double y = Y.Map(value);
            Svg.Line(Plot.Left, y, Plot.Right, y, major || labelled ? GridMajor : GridMinor);
            if (labelled)
            {
                Svg.Text(Plot.Left - 8, y + 4, _label(value), size: 11, anchor: "end", fill: Svg.Muted);
            }
        }
        Svg.Text(Plot.Left - 58, (Plot.Top + Plot.Bottom) / 2, _axisTitle, size: _fontSize, anchor: "middle", fill: Svg.Muted, rotate: -90);
        Svg.Line(Plot.Left, Plot.Top, Plot.Left, Plot.Bottom, "#888888");
        Svg.Line(Plot.Left, Plot.Bottom, Plot.Right, Plot.Bottom, "#888888");
    }

    /// <summary>A vertical grid line with its label under the plot.</summary>
    public void XTick(double x, string label, string? dash = null)
    {
        Svg.Line(x, Plot.Top, x, Plot.Bottom, GridMajor, 1, dash);
        Svg.Line(x, Plot.Bottom, x, Plot.Bottom + 5, "#888888");
        Svg.Text(x, Plot.Bottom + 19, label, size: _fontSize, anchor: "middle");
    }

    /// <summary>A log-scale x axis over <paramref name="values"/>: its labelled ticks and its title.</summary>
    public LogScale LogXAxis(IEnumerable<double> values, Func<double, string> label, string title)
    {
        var (lo, hi) = LogScale.NiceBounds(values);
        var x = new LogScale(lo, hi, Plot.Left, Plot.Right);
        foreach (var (value, _, labelled) in x.Ticks().Where(t => t.Labelled))
        {
            XTick(x.Map(value), label(value));
        }
        XTitle(title);
        return x;
    }

    public void XTitle(string title) => Svg.Text((Plot.Left + Plot.Right) / 2, Plot.Bottom + 42, title, size: _fontSize, anchor: "middle", fill: Svg.Muted);

    public void LegendHeading(string text)
    {
        Svg.Text(LegendX, _legendY + 4, text, size: _fontSize, bold: true);
        _legendY += 20;
    }

    /// <summary>One legend entry: a line sample (solid or dashed), its marker (filled or hollow), and its label.</summary>
    public void LegendEntry(string label, SeriesStyle style, string? dash = null, bool hollowMarker = false, bool line = true)
    {
        if (line)
        {
            Svg.Line(LegendX, _legendY, LegendX + 28, _legendY, style.Colour, 2.25, dash);
        }
        Svg.Marker(style.Marker, LegendX + 14, _legendY, 3.5, hollowMarker ? "#ffffff" : style.Colour, style.Colour);
        Svg.Text(LegendX + 36, _legendY + 4, label, size: _fontSize);
        _legendY += _fontSize + 7;
    }

    public void LegendGap() => _legendY += 8;

    /// <summary>Said in the middle of the plot when there is nothing to draw.</summary>
    public void Empty(string text) => Svg.Text((Plot.Left + Plot.Right) / 2, (Plot.Top + Plot.Bottom) / 2, text, size: 14, anchor: "middle", fill: Svg.Muted);

    /// <summary>The run named under the title: what it was, where it ran.</summary>
    public static string Subtitle(RunResults run) =>
        $"{run.Id} · placement {run.Environment.Placement} · {run.Environment.Isolation} · "
        + $"{run.Environment.CpuModel ?? "unknown CPU"}, {run.Environment.LogicalCpus} CPUs";

    /// <summary>How a panel names a family: "sockets" is "Sockets", "rpc" is "RPC frameworks".</summary>
    public static string FamilyTitle(string family) => family switch
    {
        "sockets" => "Sockets",
        "local" => "Local IPC",
        "messaging" => "Messaging",
        "rpc" => "RPC frameworks",
        _ => char.ToUpperInvariant(family[0]) + family[1..],
    };

    /// <summary>The neutral style of a legend entry that explains a line's form rather than naming a series.</summary>
    public static SeriesStyle Key { get; } = new(Svg.Muted, MarkerShape.Circle);
}
