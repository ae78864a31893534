using IpcBench.Reporting.Comparison;

namespace IpcBench.Reporting.History;

/// <summary>
/// One point of a history: a run, or a kept gate's current side (its B/ rounds, pooled), with what that gate said of
/// each case; <paramref name="Changes"/> are the settings it differs in from the point before (another runner's CPU),
/// which a chart marks rather than hides.
/// </summary>
public sealed record HistoryPoint(string Source, RunResults Run, IReadOnlyDictionary<VerdictKey, GateVerdict> Verdicts, IReadOnlyList<Difference> Changes)
{
    /// <summary>The commit's first 7 digits, or "no commit" for a run made outside a work tree.</summary>
    public string ShortCommit => Run.GitCommit is { Length: >= 7 } commit ? commit[..7] : "no commit";
}

/// <summary>One case over the history: its launches' median p50 and interval at each point that measured it.</summary>
public sealed record HistorySeries(VerdictKey Key, string Label, IReadOnlyList<SeriesPoint> Points);

/// <param name="Point">The index of its <see cref="HistoryPoint"/>.</param>
/// <param name="Interval">The median's 95% interval (null: fewer than six launches).</param>
public sealed record SeriesPoint(int Point, double Median, (double Low, double High)? Interval, int Launches, GateVerdict? Verdict);

/// <summary>
/// Runs in the order they were measured, each case's median and interval across them, and where a gate flagged one:
/// what github-action-benchmark and Conbench show their users, read from folders rather than a service.
/// </summary>
public sealed record RunHistory(IReadOnlyList<HistoryPoint> Points, IReadOnlyList<HistorySeries> Series)
{
    /// <summary>
    /// Each path a kept gate (a folder with B/ and verdicts.json, benchmarks/ab.sh --keep), a run folder, a results.json,
    /// or a folder of rounds (<see cref="RunPool.Read"/>). Ordered by when each was measured: on one branch, the commit order.
    /// </summary>
    /// <exception cref="ResultsFormatException">A path that holds none of these, or a damaged file in it.</exception>
    /// <exception cref="NotComparableException">A folder's rounds were measured apart.</exception>
    public static RunHistory Read(IReadOnlyList<string> paths)
    {
        var read = paths.Select(ReadPoint).OrderBy(p => p.Run.StartedAt).ToList();
        var points = read.Select((p, i) => i == 0 ? p : p with { Changes = Comparability.Differences(read[i - 1].Run, p.Run) }).ToList();
        var series = points.SelectMany((p, i) => p.Run.Cases.Select(c => (Index: i, Point: p, Case: c)))
            .GroupBy(x => VerdictKey.Of(x.Case))
            .OrderBy(g => g.Key.Transport, StringComparer.Ordinal).ThenBy(g => g.Key.Options, StringComparer.Ordinal).ThenBy(g => g.Key.Size)
            .Select(g => new HistorySeries(g.Key, Label(g.Key), [.. g.Select(x => Measured(x.Index, x.Point, x.Case))]))
            .ToList();
        return new RunHistory(points, series);
    }

    private static HistoryPoint ReadPoint(string path)
    {
        string verdicts = Path.Combine(path, GateVerdicts.FileName), current = Path.Combine(path, "B");
        return Directory.Exists(path) && File.Exists(verdicts) && Directory.Exists(current)
            ? new HistoryPoint(path, RunPool.Read(current), GateVerdicts.Read(verdicts), [])
            : new HistoryPoint(path, RunPool.Read(path), new Dictionary<VerdictKey, GateVerdict>(), []);
    }

    private static SeriesPoint Measured(int index, HistoryPoint point, CaseResult c)
    {
        var (median, interval) = LaunchMedian.Of(c.Launches);
        return new SeriesPoint(index, median, interval, c.Launches.Count, point.Verdicts.GetValueOrDefault(VerdictKey.Of(c)));
    }

    /// <summary>"tcp io=sync, 1 B, same-core".</summary>
    private static string Label(VerdictKey key) =>
        $"{key.Transport}{(key.Options.Length > 0 ? " " + key.Options.Replace('&', ' ') : "")}, {Writers.Units.Size(key.Size)}, {key.Placement}";
}
