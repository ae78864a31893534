using System.Globalization;
using System.Text;

namespace IpcBench.Reporting.Writers;

/// <summary>
/// The transport x isolation table of a run that measured one transport in several isolations (bare, netns, container
/// pairs): p50 / p99 in each, and what the boundary costs as a ratio of p50 to the bare case's.
/// </summary>
public static class IsolationTable
{
    private const string Bare = "none";

    /// <summary>Appends the table under a heading, when the run holds more than one isolation.</summary>
    public static void WriteTo(StringBuilder md, RunResults run)
    {
        var cases = run.Cases.Select(c => (Case: c, Isolation: IsolationOf(c.Options), Others: WithoutIsolation(c.Options))).ToList();
        var isolations = cases.Select(c => c.Isolation).Distinct().OrderBy(i => i == Bare ? 0 : 1).ToList();
        if (isolations.Count < 2)
        {
            return;
        }
        var notSupported = run.Skipped.Where(s => s.Size is null)
            .ToDictionary(s => (s.Transport, IsolationOf(s.Options)), s => s.Reason);
        string common = CaseOptions.Common(cases.Select(c => c.Others));

        md.Append("\n## Isolation: p50 / p99 (us), and p50 as a ratio to bare\n\n");
        var table = new MarkdownTable(["transport", "size", .. isolations.Select(i => i == Bare ? "bare" : i)]);
        foreach (var group in cases.GroupBy(c => (c.Case.Transport, c.Others, c.Case.Size)))
        {
            var bare = group.FirstOrDefault(c => c.Isolation == Bare).Case;
            var cells = isolations.Select(isolation =>
            {
                if (group.FirstOrDefault(c => c.Isolation == isolation).Case is not { } c)
                {
                    return notSupported.ContainsKey((group.Key.Transport, isolation)) ? "not supported" : Units.Missing;
                }
                string figures = $"{Units.Us(c.LatencyUs.P50)} / {Units.Us(c.LatencyUs.P99)}";
                return bare is null || isolation == Bare ? figures
                    : $"{figures} ({(c.LatencyUs.P50 / bare.LatencyUs.P50).ToString("0.00", CultureInfo.InvariantCulture)}x)";
            });
            table.Add([CaseOptions.Label(group.Key.Transport, group.Key.Others, common), Units.Size(group.Key.Size), .. cells]);
        }
        table.WriteTo(md);
        if (notSupported.Count > 0)
        {
            md.Append("\nNot supported: ")
              .AppendJoin("; ", notSupported.Select(kv => $"{kv.Key.Transport} in {kv.Key.Item2}: {kv.Value.ReplaceLineEndings(" ")}"))
              .Append('\n');
        }
    }

    private static string IsolationOf(string options) => CaseOptions.Isolation(options) ?? Bare;

    private static string WithoutIsolation(string options) => CaseOptions.Without(options, $"{Core.Hosting.Isolations.OptionName}={IsolationOf(options)}");
}
