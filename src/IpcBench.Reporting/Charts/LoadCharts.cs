using IpcBench.Reporting.Writers;

namespace IpcBench.Reporting.Charts;

/// <summary>
/// The two charts of a run under load, each a line per transport (its options but the load's): requests/s against
/// clients (throughput-by-clients.svg, a panel per family: where adding callers stops paying), and latency against offered load
/// (latency-by-load.svg, from open-loop cases: the knee where a transport saturates; a rate it could not sustain is a
/// hollow marker). Both axes are logarithmic. Written only for a run that has such cases.
/// </summary>
public static class LoadCharts
{
    public const string ThroughputFileName = "throughput-by-clients.svg";
    public const string LatencyFileName = "latency-by-load.svg";

    public static double Clients(CaseResult c) => c.Key.Clients;

    public static bool IsOpenLoop(CaseResult c) => c.OfferedRate is not null;

    /// <summary>Cases of a transport at more than one client count, closed loop.</summary>
    public static bool HasClientSeries(RunResults run) => Series(run, IsClosedLoad).Any(s => s.Points.Select(Clients).Distinct().Count() > 1);

    /// <summary>A case under load with its clients' requests back to back: a throughput case, not a steady or a cold-start one.</summary>
    private static bool IsClosedLoad(CaseResult c) => !IsOpenLoop(c) && c.Key.Kind == CaseKind.UnderLoad;

    public static bool HasOpenLoop(RunResults run) => run.Cases.Any(IsOpenLoop);

    /// <summary>A panel per family, as the latency charts: a run's twenty-odd lines in one plot could not be told apart.</summary>
    public static string RenderThroughput(RunResults run)
    {
        var series = Series(run, IsClosedLoad).Where(s => s.Points.Select(Clients).Distinct().Count() > 1).ToList();
        var points = series.SelectMany(s => s.Points).ToList();
        var families = series.Select(s => s.Family).Distinct().OrderBy(RunLayout.FamilyOrder).ToList();

        void DrawPanel(ChartFrame frame, string family)
        {
            var x = new LogScale(Math.Max(0.8, points.Min(Clients) * 0.8), points.Max(Clients) * 1.25, frame.Plot.Left, frame.Plot.Right);
            foreach (double clients in points.Select(Clients).Distinct().Order())
            {
                frame.XTick(x.Map(clients), Units.Count((long)clients));
            }
            frame.XTitle("clients (a connection and a thread each)");
            Draw(frame, [.. series.Where(s => s.Family == family)], c => x.Map(Clients(c)), c => c.RequestsPerSecond,
                c => $"{Units.Count((long)Clients(c))} clients: {Units.Rate(c.RequestsPerSecond)} requests/s, p99 {Units.Us(c.LatencyUs.P99)} us");
        }

        return ChartFrame.Panels("Requests per second by clients", ChartFrame.Subtitle(run),
            "each line: a transport's closed-loop throughput at 1, 4 ... clients, every client's requests back to back",
            families, points.Select(c => c.RequestsPerSecond), series.Select(s => s.Label), "no case under load", DrawPanel,
            "requests/s, every client together (log scale)", Units.CompactRate);
    }

    public static string RenderLatency(RunResults run)
    {
        var series = Series(run, IsOpenLoop).ToList();
        var frame = ChartFrame.Single("Latency by offered load (open loop)", ChartFrame.Subtitle(run),
            series.SelectMany(s => s.Points.SelectMany(c => new[] { c.LatencyUs.P50, c.LatencyUs.P99 })));
        frame.DrawYAxis();
        var x = frame.LogXAxis(series.SelectMany(s => s.Points).Select(c => c.OfferedRate!.Value), Units.Rate, "offered load, requests/s (log scale)");
        frame.LegendHeading("transport");
        Draw(frame, series, c => x.Map(c.OfferedRate!.Value), c => c.LatencyUs.P99,
            c => $"{Units.Rate(c.OfferedRate!.Value)} requests/s offered, {Units.Rate(c.RequestsPerSecond)} achieved{(c.Sustained == false ? " (not sustained)" : "")}: {Units.Latency(c.LatencyUs)}",
            p50: true);
        frame.LegendGap();
        frame.LegendEntry("p99", ChartFrame.Key);
        frame.LegendEntry("p50", ChartFrame.Key, "6 4");
        frame.LegendEntry("rate not sustained", ChartFrame.Key, hollowMarker: true);
        return frame.Svg.ToString();
    }

    private sealed record Line(string Label, string Family, IReadOnlyList<CaseResult> Points);

    /// <summary>The cases that <paramref name="include"/>s, a line per transport and options other than the load's, in the run's order.</summary>
    private static IEnumerable<Line> Series(RunResults run, Func<CaseResult, bool> include)
    {
        var cases = run.Cases.Where(include).ToList();
        string common = CaseOptions.Common(cases.Select(Unloaded));
        return cases.GroupBy(c => CaseOptions.Label(c.Transport, Unloaded(c), common))
            .Select(g => new Line(g.Key, g.First().Family ?? RunLayout.OtherFamily, [.. g.OrderBy(c => c.OfferedRate ?? Clients(c))]));
    }

    /// <summary>A case's options but what the chart already says: its clients, its rate, its scenario (throughput).</summary>
    private static string Unloaded(CaseResult c) => (c.Key with { Scenario = CaseKey.Steady, Clients = 1, Rate = 0 }).Options;

    private static void Draw(ChartFrame frame, List<Line> series, Func<CaseResult, double> x, Func<CaseResult, double> y,
        Func<CaseResult, string> tooltip, bool p50 = false)
    {
        for (int i = 0; i < series.Count; i++)
        {
            var style = SeriesStyle.For(i);
            var line = series[i];
            frame.Svg.Polyline(line.Points.Select(c => (x(c), frame.Y.Map(y(c)))), style.Colour, 2.25);
            if (p50)
            {
                frame.Svg.Polyline(line.Points.Select(c => (x(c), frame.Y.Map(c.LatencyUs.P50))), style.Colour, 1.5, "6 4");
            }
            foreach (var c in line.Points)
            {
                bool hollow = c.Sustained == false;
                frame.Svg.Marker(style.Marker, x(c), frame.Y.Map(y(c)), 4, hollow ? "#ffffff" : style.Colour, style.Colour, tooltip: $"{line.Label} at {tooltip(c)}");
            }
            frame.LegendEntry(line.Label, style);
        }
    }
}
