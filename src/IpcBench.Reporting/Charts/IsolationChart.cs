using IpcBench.Reporting.Writers;

namespace IpcBench.Reporting.Charts;

/// <summary>
/// isolation.svg, for a run that measured transports in several isolations (bare, network namespaces, container pairs,
/// VMs): a group of bars per transport and size, a bar per isolation (p50, whisker to p99), so that what each boundary
/// adds reads as the step between bars.
/// </summary>
public static class IsolationChart
{
    public const string FileName = "isolation.svg";

    private static string IsolationOf(CaseResult c) => IsolationTable.IsolationOf(c.Key);

    public static bool Applies(RunResults run) => RunDigest.Of(run, CaseKind.Steady).Select(IsolationOf).Distinct().Count() > 1;

    public static string Render(RunResults run)
    {
        var cases = RunDigest.Of(run, CaseKind.Steady);
        var isolations = cases.Select(IsolationOf).Distinct().OrderBy(i => i == IsolationTable.Bare ? 0 : 1).ToList();
        string Name(string isolation) => isolation == IsolationTable.Bare ? "bare" : isolation;
        var others = cases.Select(c => IsolationTable.WithoutIsolation(c.Key)).ToList();
        string common = CaseOptions.Common(others);
        var groups = cases.Select((c, i) => (Case: c, Others: others[i]))
            .GroupBy(x => (x.Case.Transport, x.Others, x.Case.Size))
            .Select(g =>
            {
                string label = $"{CaseOptions.Label(g.Key.Transport, g.Key.Others, common)} {Units.Size(g.Key.Size)}";
                var bars = g.OrderBy(x => isolations.IndexOf(IsolationOf(x.Case))).Select(x =>
                {
                    var c = x.Case;
                    string isolation = IsolationOf(c);
                    return new Bar(c.LatencyUs.P50, c.LatencyUs.P99, SeriesStyle.For(isolations.IndexOf(isolation)),
                        $"{label}, {Name(isolation)}: {Units.Latency(c.LatencyUs)}");
                }).ToList();
                return new BarGroup(label, bars);
            }).ToList();
        return BarChart.Render("Round-trip latency by isolation", ChartFrame.Subtitle(run), groups,
            [.. isolations.Select((isolation, i) => (Name(isolation), SeriesStyle.For(i)))], "p50 (bar) and p99 (whisker), round trip (log scale)");
    }
}
