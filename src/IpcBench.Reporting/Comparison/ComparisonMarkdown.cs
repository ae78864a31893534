using System.Globalization;
using System.Text;
using IpcBench.Reporting.Collecting;
using IpcBench.Reporting.Writers;

namespace IpcBench.Reporting.Comparison;

/// <summary>The comparison as markdown: a table of the common cases, then what only one run has, then the differences between the runs that were allowed.</summary>
public static class ComparisonMarkdown
{
    public static string Render(RunComparison cmp)
    {
        var md = new StringBuilder();
        md.Append($"# IpcBench compare: {cmp.Baseline.Id} -> {cmp.Current.Id}\n\n");
        md.Append($"- baseline: {Describe(cmp.Baseline)}\n");
        md.Append($"- current: {Describe(cmp.Current)}\n\n");
        md.Append(string.Create(CultureInfo.InvariantCulture,
            $"A case is slower (or faster) when its p50 moved by more than {cmp.Threshold * 100:0.#}% and a Mann-Whitney U test on the per-request samples gives p < {cmp.Alpha:0.###}.\n"));
        string common = CaseOptions.Common(cmp.Cases.Select(c => c.Current.Options).Concat(cmp.Cases.Select(c => c.Baseline.Options)));
        if (common.Length > 0)
        {
            md.Append($"Every case: {common.Replace("&", ", ", StringComparison.Ordinal)}.\n");
        }
        md.Append('\n');

        var table = new Table("case", "size", "p50 base us", "p50 now us", "p50 change", "p99 base us", "p99 now us", "p99 change",
            "req/s change", "p-value", "verdict") { TextColumns = [10] };
        foreach (var c in cmp.Cases)
        {
            table.Add(CaseOptions.Label(c.Current.Transport, CaseOptions.Normalize(c.Current.Options), common), Units.Size(c.Current.Size),
                Units.Us(c.Baseline.LatencyUs.P50), Units.Us(c.Current.LatencyUs.P50), Units.Change(c.P50Change),
                Units.Us(c.Baseline.LatencyUs.P99), Units.Us(c.Current.LatencyUs.P99), Units.Change(c.P99Change),
                Units.Change(c.RequestsPerSecondChange), Units.PValue(c.PValue), Word(c.Verdict));
        }
        table.WriteTo(md);
        md.Append('\n');

        foreach (var c in cmp.Added)
        {
            md.Append($"- added (only in {cmp.Current.Id}): {Name(c)}\n");
        }
        foreach (var c in cmp.Removed)
        {
            md.Append($"- removed (only in {cmp.Baseline.Id}): {Name(c)}\n");
        }
        var notes = cmp.AllowedDifferences.Select(d => $"{d}, allowed by --allow-different")
            .Concat(cmp.Cases.Where(c => c.Baseline.SamplesUs.Count == 0 || c.Current.SamplesUs.Count == 0)
                .Select(c => $"{Name(c.Current)} has no per-request samples in one run: untested, so never slower or faster"))
            .ToList();
        foreach (string note in notes)
        {
            md.Append($"- note: {note}\n");
        }
        if (cmp.Added.Count + cmp.Removed.Count + notes.Count > 0)
        {
            md.Append('\n');
        }

        int slower = cmp.Cases.Count(c => c.Verdict == Verdict.Slower);
        int faster = cmp.Cases.Count(c => c.Verdict == Verdict.Faster);
        md.Append($"{slower} slower, {faster} faster, {cmp.Cases.Count - slower - faster} same");
        md.Append(cmp.Added.Count + cmp.Removed.Count > 0 ? $"; {cmp.Added.Count} added, {cmp.Removed.Count} removed.\n" : ".\n");
        return md.ToString();
    }

    /// <summary>"20261122-005250-bench, commit 181ebdb, placement none, AMD EPYC x2".</summary>
    private static string Describe(RunResults run) =>
        $"{run.Id}, commit {(run.GitCommit is { Length: >= 7 } c ? c[..7] : "unknown")}, placement {run.Environment.Placement}, "
        + $"{run.Environment.CpuModel ?? "unknown CPU"} x{run.Environment.LogicalCpus}";

    private static string Word(Verdict verdict) => verdict switch
    {
        Verdict.Slower => "**slower**",
        Verdict.Faster => "**faster**",
        _ => "same",
    };

    private static string Name(CaseResult c) =>
        $"{c.Transport}{(c.Options.Length > 0 ? " " + c.Options.Replace('&', ' ') : "")} at {Units.Size(c.Size)}";
}
