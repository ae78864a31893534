using IpcBench.Reporting.Writers;

namespace IpcBench.Reporting.Charts;

/// <summary>
/// cold-starts.svg: what a new connection costs, each transport's connect + one request + close as a bar (p50, with a
/// whisker to p99), fastest first, coloured by family. Kept apart from the steady state, orders of magnitude below it.
/// </summary>
public static class ColdStartChart
{
    public const string FileName = "cold-starts.svg";

    public static bool Applies(RunResults run) => RunDigest.Of(run, CaseKind.ColdStart).Count > 0;

    public static string Render(RunResults run)
    {
        var cases = RunDigest.Of(run, CaseKind.ColdStart);
        string common = CaseOptions.Common(cases.Select(c => c.Options));
        var groups = cases.OrderBy(c => c.LatencyUs.P50).Select(c =>
        {
            string label = CaseOptions.Label(c.Transport, c.Options, common) + (cases.Select(x => x.Size).Distinct().Count() > 1 ? $" {Units.Size(c.Size)}" : "");
            var style = SeriesStyle.ForFamily(c.Family ?? RunLayout.OtherFamily);
            return new BarGroup(label, [new Bar(c.LatencyUs.P50, c.LatencyUs.P99, style,
                $"{label}: {Units.Latency(c.LatencyUs)}, {Units.Rate(c.RequestsPerSecond)} connects/s")]);
        }).ToList();
        var legend = new RunLayout(run with { Cases = cases }).Families
            .Select(f => (ChartFrame.FamilyTitle(f), SeriesStyle.ForFamily(f))).ToList();
        return BarChart.Render("Cold start: connect, one request, close", ChartFrame.Subtitle(run), groups, legend,
            "p50 (bar) and p99 (whisker) of a whole cycle (log scale)");
    }
}
