namespace IpcBench.Reporting.Comparison;

/// <summary>Two levels a case's launches fell on: each level's median and how many launches took it.</summary>
public sealed record LaunchLevels(double Low, int LowCount, double High, int HighCount);

/// <summary>
/// Whether a case's launches fell on two levels (uds here: a launch's p50 is 17-18 us or 21-27 us, whichever the
/// process takes), so that a median over them says how many took each more than what either costs. The launches' log
/// p50s are split in two where the spread within the halves is least (two-means), and the share of the spread the split
/// explains is tested against launches of one level: normal log p50s of the same mean and spread, drawn
/// <see cref="NullDraws"/> times with a fixed seed. A hard split of one level also explains much (about three
/// quarters of a normal sample's spread), so only a share one level gives in fewer than 1% of draws counts, and the two
/// halves must stand apart (the gap between them at least half the wider half's range, the levels 5% apart).
/// </summary>
public static class Bimodality
{
    /// <summary>The fewest launches two levels are looked for in: with fewer, one level explains any split (p &gt;= 1%).</summary>
    public const int FewestLaunches = 8;

    private const int NullDraws = 200;
    private const double Alpha = 0.01;

    /// <summary>The two levels of <paramref name="launches"/>; null when they do not fall on two, or are too few to tell.</summary>
    public static LaunchLevels? Of(IReadOnlyList<double> launches)
    {
        if (launches.Count < FewestLaunches || launches.Any(p => !(p > 0) || !double.IsFinite(p)))
        {
            return null;
        }
        double[] logs = [.. launches.Select(p => Math.Log(p)).Order()];
        var (share, split) = BestSplit(logs);
        double[] low = logs[..split], high = logs[split..];
        double gap = high[0] - low[^1], widest = Math.Max(low[^1] - low[0], high[^1] - high[0]);
        if (gap < widest / 2 || Math.Exp(high.Average() - low.Average()) < 1.05 || OneLevelExplains(logs, share) >= Alpha)
        {
            return null;
        }
        return new LaunchLevels(Math.Exp(LaunchMedian.OfSorted(low)), low.Length, Math.Exp(LaunchMedian.OfSorted(high)), high.Length);
    }

    /// <summary>The share of the spread of sorted <paramref name="values"/> the best split explains, and where it splits (two a side at least).</summary>
    private static (double Share, int Split) BestSplit(double[] values)
    {
        int n = values.Length;
        double[] sum = new double[n + 1], squares = new double[n + 1];
        for (int i = 0; i < n; i++)
        {
            sum[i + 1] = sum[i] + values[i];
            squares[i + 1] = squares[i] + values[i] * values[i];
        }
        double Spread(int from, int to) => squares[to] - squares[from] - (sum[to] - sum[from]) * (sum[to] - sum[from]) / (to - from);
        double total = Spread(0, n);
        int best = Enumerable.Range(2, n - 3).MinBy(i => Spread(0, i) + Spread(i, n));
        return (total > 0 ? 1 - (Spread(0, best) + Spread(best, n)) / total : 0, best);
    }

    /// <summary>How often launches of one level (normal, <paramref name="values"/>' mean and spread) split as well: a p-value.</summary>
    private static double OneLevelExplains(double[] values, double share)
    {
        double mean = values.Average(), sd = Math.Sqrt(values.Sum(v => (v - mean) * (v - mean)) / (values.Length - 1));
        var random = new Random(values.Length);
        int asWell = 0;
        for (int draw = 0; draw < NullDraws; draw++)
        {
            double[] one = [.. Enumerable.Range(0, values.Length).Select(_ => mean + sd * Normal(random)).Order()];
            asWell += BestSplit(one).Share >= share ? 1 : 0;
        }
        return (1.0 + asWell) / (NullDraws + 1);
    }

    /// <summary>A standard normal draw (Box-Muller).</summary>
    private static double Normal(Random random) => Math.Sqrt(-2 * Math.Log(1 - random.NextDouble())) * Math.Cos(2 * Math.PI * random.NextDouble());
}
