using IpcBench.Reporting.Writers;

namespace IpcBench.Reporting.Comparison;

public enum Verdict
{
    Same,
    Faster,
    Slower,

    /// <summary>The interval of the p50 ratio spans the threshold: more launches would tell.</summary>
    CannotTell,
}

/// <summary>One case measured in both runs.</summary>
/// <param name="P50Change">(current - baseline) / baseline of the median (by launches, the ratio's estimate minus 1); positive is slower.</param>
/// <param name="P99Change">The same for p99.</param>
/// <param name="RequestsPerSecondChange">The same for requests/s; positive is faster.</param>
/// <param name="PValue">Two-sided Mann-Whitney U p-value: of the launches' p50s when both sides have several, else of the per-request samples.</param>
/// <param name="P50Ratio">The launches' p50 ratio and its interval, when both sides have two launches or more; null: judged by requests.</param>
public sealed record CaseComparison(
    CaseResult Baseline, CaseResult Current, double P50Change, double P99Change, double RequestsPerSecondChange, double PValue,
    RatioInterval? P50Ratio, Verdict Verdict);

/// <summary>No comparison can be made: the runs share no case.</summary>
public sealed class IncomparableRunsException(string message) : Exception(message);

/// <summary>The runs differ in settings that move every figure (<see cref="Comparability"/>), and none of them was allowed.</summary>
public sealed class NotComparableException(IReadOnlyList<Difference> differences)
    : Exception($"the runs are not comparable: {string.Join("; ", differences)}")
{
    public IReadOnlyList<Difference> Differences { get; } = differences;
}

/// <summary>
/// Two runs, case by case, matched on their full identity: transport, options (the load's and scenario's among them),
/// size and placement; refused when the runs differ in a setting that moves every figure, unless that difference is allowed.
/// <para>A case with several launches a side (rounds) is judged on its launches, the unit that varies: the 95% interval
/// of the ratio of their p50s (<see cref="LaunchRatio"/>) wholly above 1 + threshold is slower, wholly below 1 - threshold
/// faster, wholly within both same, and anything else "cannot tell" with these launches.</para>
/// <para>A case of one launch on a side has only its requests: slower when its median got worse by more than the threshold
/// and a Mann-Whitney U test on the two runs' per-request samples gives p &lt; alpha. That test cannot see how launches
/// vary, so two launches of one build can differ "significantly"; the report says which cases were judged so.</para>
/// </summary>
public sealed record RunComparison(
    RunResults Baseline, RunResults Current, double Threshold, double Alpha,
    IReadOnlyList<CaseComparison> Cases, IReadOnlyList<CaseResult> Added, IReadOnlyList<CaseResult> Removed,
    IReadOnlyList<Difference> AllowedDifferences)
{
    public const double DefaultAlpha = 0.01;

    /// <summary>Whether a case's verdict is one of <paramref name="verdicts"/> (compare's and the gate's --fail-on).</summary>
    public bool Any(IReadOnlyCollection<Verdict> verdicts) => Cases.Any(c => verdicts.Contains(c.Verdict));

    /// <param name="threshold">The relative change of the median that matters, e.g. 0.10 for 10%.</param>
    /// <param name="allowDifferent">Keys of <see cref="Comparability.Differences"/> that may differ ("isolation", "io" ...; never placement).</param>
    /// <exception cref="NotComparableException">The runs differ in a setting <paramref name="allowDifferent"/> does not name.</exception>
    /// <exception cref="IncomparableRunsException">The runs have no case in common.</exception>
    public static RunComparison Compare(RunResults baseline, RunResults current, double threshold, double alpha = DefaultAlpha,
        IReadOnlyCollection<string>? allowDifferent = null)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(threshold);
        var differences = Comparability.Differences(baseline, current);
        var refused = differences.Where(d => allowDifferent?.Contains(d.Key) != true || Comparability.NeverAllowed.Contains(d.Key)).ToList();
        if (refused.Count > 0)
        {
            throw new NotComparableException(refused);
        }
        var before = Index(baseline);
        var after = Index(current);
        var matched = after.Where(kv => before.ContainsKey(kv.Key))
            .Select(kv => Case(before[kv.Key], kv.Value, threshold, alpha)).ToList();
        if (matched.Count == 0)
        {
            throw new IncomparableRunsException(
                $"the runs have no case in common ({baseline.Id}: {Describe(before.Keys)}; {current.Id}: {Describe(after.Keys)})");
        }
        return new RunComparison(baseline, current, threshold, alpha, matched,
            after.Where(kv => !before.ContainsKey(kv.Key)).Select(kv => kv.Value).ToList(),
            before.Where(kv => !after.ContainsKey(kv.Key)).Select(kv => kv.Value).ToList(), differences);
    }

    private static CaseComparison Case(CaseResult b, CaseResult c, double threshold, double alpha)
    {
        double p99 = Change(b.LatencyUs.P99, c.LatencyUs.P99);
        double requestsPerSecond = Change(b.RequestsPerSecond, c.RequestsPerSecond);
        if (b.Launches.Count >= 2 && c.Launches.Count >= 2 && LaunchRatio.Of(b.Launches, c.Launches) is { } ratio)
        {
            return new CaseComparison(b, c, ratio.Estimate - 1, p99, requestsPerSecond, RankTest.PValue(b.Launches, c.Launches), ratio,
                ByInterval(ratio, threshold));
        }
        double p50 = Change(b.LatencyUs.P50, c.LatencyUs.P50);
        double p = RankTest.PValue(b.SamplesUs, c.SamplesUs);
        var verdict = p >= alpha ? Verdict.Same
            : p50 > threshold ? Verdict.Slower
            : p50 < -threshold ? Verdict.Faster
            : Verdict.Same;
        return new CaseComparison(b, c, p50, p99, requestsPerSecond, p, null, verdict);
    }

    private static Verdict ByInterval(RatioInterval ratio, double threshold) =>
        ratio.Low > 1 + threshold ? Verdict.Slower
        : ratio.High < 1 - threshold ? Verdict.Faster
        : ratio.Low >= 1 - threshold && ratio.High <= 1 + threshold ? Verdict.Same
        : Verdict.CannotTell;

    private static double Change(double baseline, double current) =>
        baseline > 0 ? (current - baseline) / baseline : current == baseline ? 0 : double.PositiveInfinity;

    /// <summary>
    /// Cases by their key, placement included (a case across CPUs pays wake-ups one on one CPU does not), whatever order
    /// a file wrote the options in.
    /// </summary>
    private static Dictionary<CaseKey, CaseResult> Index(RunResults run) =>
        run.Cases.GroupBy(c => c.Key).ToDictionary(g => g.Key, g => g.First());

    private static string Describe(IEnumerable<CaseKey> keys)
    {
        var list = keys.Select(k => $"{k.Transport}{(k.Options.Length > 0 ? "?" + k.Options : "")} {Units.Size(k.Size)} {k.Placement}").ToList();
        return list.Count == 0 ? "no cases" : string.Join(", ", list.Take(6)) + (list.Count > 6 ? ", ..." : "");
    }
}
