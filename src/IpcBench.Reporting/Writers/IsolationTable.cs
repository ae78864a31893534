using System.Globalization;
using IpcBench.Harness.Hosting;

namespace IpcBench.Reporting.Writers;

/// <summary>
/// The transport x isolation table of a run that measured one transport in several isolations (bare, netns, container
/// pairs): p50 / p99 in each, and what the boundary costs as a ratio of p50 to the bare case's.
/// </summary>
public static class IsolationTable
{
    /// <summary>How a case with no isolation option (client and server side by side) is named.</summary>
    public const string Bare = "none";

    /// <summary>The table, when the run holds more than one isolation.</summary>
    internal static ReportSection? Section(RunResults run)
    {
        var cases = run.Cases.Select(c => (Case: c, Isolation: IsolationOf(c.Key), Others: WithoutIsolation(c.Key))).ToList();
        var isolations = cases.Select(c => c.Isolation).Distinct().OrderBy(i => i == Bare ? 0 : 1).ToList();
        if (isolations.Count < 2)
        {
            return null;
        }
        // Refusals at every size (merge --skipped) and at one (a plan's or a ping's skipped case), by where they were refused.
        var refused = run.Skipped.ToLookup(s => (s.Transport, s.Isolation ?? Bare));
        var notSupported = refused.ToDictionary(r => r.Key, r => r.First().Reason);
        string common = CaseOptions.Common(cases.Select(c => c.Others));

        var table = new Table(["transport", "size", .. isolations.Select(i => i == Bare ? "bare" : i)]);
        foreach (var group in cases.GroupBy(c => (c.Case.Transport, c.Others, c.Case.Size)))
        {
            var bare = group.FirstOrDefault(c => c.Isolation == Bare).Case;
            var cells = isolations.Select(isolation =>
            {
                if (group.FirstOrDefault(c => c.Isolation == isolation).Case is not { } c)
                {
                    return refused[(group.Key.Transport, isolation)].Any(s => s.Size is null || s.Size == group.Key.Size) ? "not supported" : Units.Missing;
                }
                string figures = $"{Units.Us(c.LatencyUs.P50)} / {Units.Us(c.LatencyUs.P99)}";
                return bare is null || isolation == Bare ? figures
                    : $"{figures} ({(c.LatencyUs.P50 / bare.LatencyUs.P50).ToString("0.00", CultureInfo.InvariantCulture)}x)";
            });
            table.Add([CaseOptions.Label(group.Key.Transport, group.Key.Others, common), Units.Size(group.Key.Size), .. cells]);
        }
        string[] after = notSupported.Count == 0 ? []
            : ["Not supported: " + string.Join("; ", notSupported.Select(kv => $"{kv.Key.Transport} in {kv.Key.Item2}: {kv.Value.ReplaceLineEndings(" ")}"))];
        return new ReportSection("Isolation: p50 / p99 (us), and p50 as a ratio to bare", [], table, after);
    }

    /// <summary>The table as summary.md has it, for a verb to print; empty when the run holds one isolation.</summary>
    public static string Markdown(RunResults run) => Section(run with { Cases = RunDigest.Of(run, CaseKind.Steady) })?.ToMarkdown() ?? "";

    public static string IsolationOf(CaseKey key) => key.Isolation ?? Bare;

    /// <summary>A case's options but its isolation: what its row of the table is.</summary>
    public static string WithoutIsolation(CaseKey key) => (key with { Isolation = null }).Options;
}
