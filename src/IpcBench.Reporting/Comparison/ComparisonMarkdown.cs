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
            $"A case of several launches a side is judged on its launches' p50s: slower (or faster) when the {LaunchRatio.DefaultConfidence:0%} interval of their ratio lies wholly beyond {cmp.Threshold * 100:0.#}%, same when wholly within, and otherwise \"cannot tell\" with these launches. "
            + $"A case of one launch on a side is slower (or faster) when its p50 moved by more than {cmp.Threshold * 100:0.#}% and a Mann-Whitney U test on the per-request samples gives p < {cmp.Alpha:0.###}, a test that cannot see how launches vary.\n"));
        string common = CaseOptions.Common(cmp.Cases.Select(c => c.Current.Options).Concat(cmp.Cases.Select(c => c.Baseline.Options)));
        if (common.Length > 0)
        {
            md.Append($"Every case: {common.Replace("&", ", ", StringComparison.Ordinal)}.\n");
        }
        md.Append('\n');

        var table = new Table("case", "size", "p50 base us", "p50 now us", "p50 change", "p50 ratio, 95% interval", "launches", "p99 base us",
            "p99 now us", "p99 change", "req/s change", "p-value", "verdict") { TextColumns = [5, 12] };
        foreach (var c in cmp.Cases)
        {
            table.Add(CaseOptions.Label(c.Current.Transport, CaseOptions.Normalize(c.Current.Options), common), Units.Size(c.Current.Size),
                Units.Us(c.Baseline.LatencyUs.P50), Units.Us(c.Current.LatencyUs.P50), Units.Change(c.P50Change), Interval(c.P50Ratio),
                $"{c.Baseline.Launches.Count}+{c.Current.Launches.Count}", Units.Us(c.Baseline.LatencyUs.P99), Units.Us(c.Current.LatencyUs.P99), Units.Change(c.P99Change),
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

        int Counted(Verdict verdict) => cmp.Cases.Count(c => c.Verdict == verdict);
        md.Append($"{Counted(Verdict.Slower)} slower, {Counted(Verdict.Faster)} faster, {Counted(Verdict.Same)} same, {Counted(Verdict.CannotTell)} cannot tell");
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
        Verdict.CannotTell => "cannot tell",
        _ => "same",
    };

    /// <summary>"1.03 (0.91-1.18)"; "-" judged by requests; "(too few launches)" when no interval exists.</summary>
    private static string Interval(RatioInterval? ratio) => ratio switch
    {
        null => "-",
        { Bounded: false } => string.Create(CultureInfo.InvariantCulture, $"{ratio.Estimate:0.00} (too few launches)"),
        _ => string.Create(CultureInfo.InvariantCulture, $"{ratio.Estimate:0.00} ({ratio.Low:0.00}-{ratio.High:0.00})"),
    };

    private static string Name(CaseResult c) =>
        $"{c.Transport}{(c.Options.Length > 0 ? " " + c.Options.Replace('&', ' ') : "")} at {Units.Size(c.Size)}";
}
