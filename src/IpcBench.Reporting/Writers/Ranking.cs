using System.Globalization;
using IpcBench.Reporting.Comparison;

namespace IpcBench.Reporting.Writers;

/// <summary>
/// One case in a ranking: its launches' median p50, that median's 95% interval (null: fewer than six launches), the
/// two levels its launches fell on if they did, and its group (0: no interval, so no group).
/// </summary>
public sealed record RankedCase(string Label, CaseResult Case, double Median, (double Low, double High)? Interval, LaunchLevels? Levels, int Group);

/// <summary>The steady-state cases of one size (and placement, where a run has several), fastest first, and its chart's file name.</summary>
public sealed record RankingAt(int Size, string? Placement, IReadOnlyList<RankedCase> Cases, string ChartFileName)
{
    public string Title => $"Ranking at {Units.Size(Size)}{(Placement is null ? "" : $", placement {Placement}")}: p50, fastest first";

    /// <summary>Whether any case has an interval: a run of rounds (plan --rounds, ab.sh), not a single launch a case.</summary>
    public bool HasIntervals => Cases.Any(c => c.Interval is not null);
}

/// <summary>
/// The answer a reader came for, before any table: at each size every transport's p50, the median over its process
/// launches (what varies from run to run is the launch), with the median's 95% interval, fastest first and in groups.
/// A group is what the run cannot tell from its fastest: a case joins the group while its interval overlaps the interval
/// of the group's first case, and the first whose interval lies wholly above that starts the next group. (Not a chain of
/// overlaps: that would put two cases the run does tell apart in one group.) A case of fewer than six launches has no
/// interval and no group.
/// </summary>
public static class Ranking
{
    public static IReadOnlyList<RankingAt> Of(RunResults run)
    {
        var placements = RunDigest.Of(run, CaseKind.Steady).GroupBy(c => c.Placement).ToList();
        var rankings = new List<RankingAt>();
        foreach (var placement in placements)
        {
            var layout = new RunLayout(run with { Cases = [.. placement] });
            foreach (int size in layout.Sizes)
            {
                var ranked = layout.Rows.Select(row => layout.Case(row, size) is { } c ? Rank(row.Label, c) : null).OfType<RankedCase>()
                    .OrderBy(r => r.Median).ToList();
                if (ranked.Count > 0)
                {
                    string? where = placements.Count > 1 ? placement.Key : null;
                    rankings.Add(new RankingAt(size, where, Grouped(ranked), ChartFileName(size, where, rankings.Select(r => r.ChartFileName))));
                }
            }
        }
        return rankings;
    }

    /// <summary>
    /// "ranking-1B.svg", with several placements "ranking-1B-cross-core.svg": the placement, read from a results.json
    /// that may come from anywhere, kept to letters, digits and '-', so that the name stays a name in the run folder,
    /// and numbered where that makes two alike.
    /// </summary>
    private static string ChartFileName(int size, string? placement, IEnumerable<string> taken)
    {
        string stem = $"ranking-{Units.Size(size).Replace(" ", "", StringComparison.Ordinal)}"
            + (placement is null ? "" : "-" + new string([.. placement.Select(ch => char.IsAsciiLetterOrDigit(ch) || ch == '-' ? ch : '_')]));
        string name = stem + ".svg";
        for (int n = 2; taken.Contains(name); n++)
        {
            name = $"{stem}-{n}.svg";
        }
        return name;
    }

    private static RankedCase Rank(string label, CaseResult c)
    {
        var (median, interval) = LaunchMedian.Of(c.Launches); // the median round's p50, c's own where c is a pooled run
        return new RankedCase(label, c, median, interval, Bimodality.Of(c.Launches), Group: 0);
    }

    private static IReadOnlyList<RankedCase> Grouped(IReadOnlyList<RankedCase> fastestFirst)
    {
        int group = 0;
        double reach = double.NegativeInfinity; // the top of the interval of the group's first case
        var grouped = new List<RankedCase>();
        foreach (var r in fastestFirst)
        {
            if (r.Interval is not { } interval)
            {
                grouped.Add(r);
                continue;
            }
            if (interval.Low > reach)
            {
                group++;
                reach = interval.High;
            }
            grouped.Add(r with { Group = group });
        }
        return grouped;
    }

    /// <summary>The rankings as report sections, what their columns mean said once, in the first.</summary>
    internal static IEnumerable<ReportSection> Sections(RunResults run) => Of(run).Select((ranking, i) => Section(ranking, first: i == 0));

    private static ReportSection Section(RankingAt ranking, bool first)
    {
        bool intervals = ranking.HasIntervals, levels = ranking.Cases.Any(c => c.Levels is not null);
        string[] header = ["rank", "transport", "p50 us", .. intervals ? new[] { "95% interval", "launches", "group" } : [], .. levels ? new[] { "two levels" } : []];
        var table = new Table(header) { TextColumns = levels ? [1, header.Length - 1] : [1] };
        int rank = 0;
        foreach (var r in ranking.Cases)
        {
            var cells = new List<string> { (++rank).ToString(CultureInfo.InvariantCulture), r.Label, Units.Us(r.Median) };
            if (intervals)
            {
                cells.AddRange([r.Interval is { } i ? $"{Units.Us(i.Low)} - {Units.Us(i.High)}" : Units.Missing, Units.Count(r.Case.Launches.Count),
                    r.Group > 0 ? Units.Count(r.Group) : Units.Missing]);
            }
            if (levels)
            {
                cells.Add(r.Levels is { } l ? $"{Units.Us(l.Low)} us x{l.LowCount}, {Units.Us(l.High)} us x{l.HighCount}" : "");
            }
            table.Add([.. cells]);
        }
        string how = intervals
            ? "p50: the median of the p50s of the case's process launches (of an even number, the lower middle), with that median's 95% interval (from six launches). "
              + "A group holds the transports whose intervals overlap the interval of its first: this run cannot tell them from it. "
              + "The first transport whose interval lies wholly above that starts the next group."
            : ranking.Cases.Max(c => c.Case.Launches.Count) is > 1 and var most
            ? $"At most {most} process launches a case, too few for an interval (it takes six): p50 is the median launch's. "
              + "For an interval and groups of what cannot be told apart, run six or more (the suite's --launchCount 6, 'ipcbench plan --rounds 6')."
            : "One process launch a case: the order is that launch's, and a launch's p50 moves from launch to launch. "
              + "For an interval and groups of what cannot be told apart, run the cases in rounds ('ipcbench plan --rounds 6').";
        string? twoLevels = levels
            ? "two levels: the case's launches fell on two levels, each given with its median and how many launches took it; its median says how many took each more than what either costs."
            : null;
        return new ReportSection(ranking.Title, first ? [how] : [], table, twoLevels is null ? null : [twoLevels], ranking.ChartFileName);
    }
}
