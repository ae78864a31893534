using IpcBench.Reporting.Writers;

namespace IpcBench.Reporting.Charts;

/// <summary>
/// anatomy.svg, "where a round trip's time goes": a bar per transport at one size, its length the wall time per request,
/// stacked from the client's user and system CPU, the server's, and the rest (<see cref="AnatomySection"/>); a black
/// tick marks the round trip where the CPU of both overruns it (both sides ran at once). Linear, so that the parts add
/// up as they look.
/// </summary>
public static class AnatomyChart
{
    public const string FileName = "anatomy.svg";

    private const double Width = 880, Left = 230, Right = 840, Top = 100, BarHeight = 14, BarGap = 6;

    private static readonly (string Label, string Colour)[] Segments =
    [
        ("client user", "#1f5fa8"), ("client system", "#8fb6e0"), ("server user", "#c0581b"), ("server system", "#f0b48a"), ("rest", "#c8c8c8"),
    ];

    private static List<AnatomySection.Part> Parts(RunResults run, out int? size)
    {
        var steady = RunDigest.SteadyState(run);
        size = PercentileChart.ChartedSize(steady);
        return size is int s ? [.. AnatomySection.Parts(new RunLayout(steady), s).OrderBy(p => p.RoundTripUs)] : [];
    }

    public static bool Applies(RunResults run) => Parts(run, out _).Count > 0;

    public static string Render(RunResults run)
    {
        var parts = Parts(run, out int? size);
        double bottom = Top + Math.Max(60, parts.Count * (BarHeight + BarGap));
        var svg = ChartFrame.Canvas(Width, bottom + 60, $"Where a round trip's time goes{(size is int s ? $" at {Units.Size(s)}" : "")}", ChartFrame.Subtitle(run));
        double legendX = 24;
        foreach (var (label, colour) in Segments)
        {
            svg.Rect(legendX, 66, 12, 12, colour);
            svg.Text(legendX + 17, 76, label, size: 12);
            legendX += 30 + label.Length * 7;
        }
        double max = parts.Count == 0 ? 1 : parts.Max(p => Math.Max(p.RoundTripUs, p.RoundTripUs - Math.Min(0, p.RestUs)));
        double step = NiceStep(max / 5);
        double top = Math.Ceiling(max / step) * step;
        double X(double us) => Left + (Right - Left) * us / top;
        for (double tick = 0; tick <= top + step / 2; tick += step)
        {
            svg.Line(X(tick), Top - 4, X(tick), bottom, "#e0e0e0");
            svg.Text(X(tick), bottom + 18, LogScale.LatencyLabel(tick), size: 11, anchor: "middle", fill: Svg.Muted);
        }
        svg.Text((Left + Right) / 2, bottom + 42, "microseconds per request (linear); a tick: the round trip, where the CPU overruns it", size: 12, anchor: "middle", fill: Svg.Muted);

        double y = Top;
        foreach (var p in parts)
        {
            double[] lengths = [p.Anatomy.Client?.UserUs ?? 0, p.Anatomy.Client?.SystemUs ?? 0, p.Anatomy.Server?.UserUs ?? 0, p.Anatomy.Server?.SystemUs ?? 0,
                Math.Max(0, p.RestUs)];
            double at = 0;
            for (int i = 0; i < lengths.Length; i++)
            {
                if (lengths[i] > 0)
                {
                    svg.Rect(X(at), y, X(at + lengths[i]) - X(at), BarHeight, Segments[i].Colour,
                        tooltip: $"{p.Row.Label}: {Segments[i].Label} {Units.Cpu(lengths[i])} us of a {Units.Us(p.RoundTripUs)} us round trip");
                }
                at += lengths[i];
            }
            if (p.RestUs < 0)
            {
                svg.Line(X(p.RoundTripUs), y - 2, X(p.RoundTripUs), y + BarHeight + 2, Svg.Ink, 2);
            }
            svg.Text(Left - 8, y + BarHeight - 3, p.Row.Label, size: 12, anchor: "end");
            y += BarHeight + BarGap;
        }
        svg.Line(Left, Top - 4, Left, bottom, "#888888");
        return svg.ToString();
    }

    /// <summary>1, 2 or 5 times a power of ten, the least at or above <paramref name="rough"/>.</summary>
    private static double NiceStep(double rough)
    {
        double power = Math.Pow(10, Math.Floor(Math.Log10(Math.Max(rough, 1e-3))));
        return new[] { 1.0, 2, 5, 10 }.Select(m => m * power).First(s => s >= rough);
    }
}
