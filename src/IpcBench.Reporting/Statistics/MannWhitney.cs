namespace IpcBench.Reporting.Statistics;

/// <summary>
/// The two-sided Mann-Whitney U test (Wilcoxon rank-sum): do two sets of latencies come from the
/// same distribution? Rank-based, so a handful of huge outliers (a page fault, a preemption) cannot
/// fake or hide a shift the way they move a mean. Normal approximation, with the tie correction
/// (latencies repeat at clock resolution) and the continuity correction; as SciPy's
/// <c>mannwhitneyu(x, y, method="asymptotic")</c>.
/// </summary>
public static class MannWhitney
{
    /// <param name="U">U of the first sample: how many (x, y) pairs have x &gt; y, ties counting a half.</param>
    /// <param name="Z">The normal score of U after both corrections (0 when there is nothing to tell).</param>
    /// <param name="P">The two-sided p-value; 1 when either sample is empty or every value is the same.</param>
    public readonly record struct Result(double U, double Z, double P);

    public static Result Test(IReadOnlyList<double> x, IReadOnlyList<double> y)
    {
        int n1 = x.Count, n2 = y.Count;
        if (n1 == 0 || n2 == 0)
        {
            return new Result(0, 0, 1);
        }
        int n = n1 + n2;
        var all = new (double Value, bool First)[n];
        for (int i = 0; i < n1; i++)
        {
            all[i] = (x[i], true);
        }
        for (int i = 0; i < n2; i++)
        {
            all[n1 + i] = (y[i], false);
        }
        Array.Sort(all, (a, b) => a.Value.CompareTo(b.Value));

        // Ranks from 1; a run of ties shares the mean of its ranks, and adds t^3 - t to the tie term.
        double rankSumX = 0;
        double ties = 0;
        for (int i = 0; i < n;)
        {
            int j = i;
            while (j + 1 < n && all[j + 1].Value == all[i].Value)
            {
                j++;
            }
            double rank = (i + j) / 2.0 + 1;
            for (int k = i; k <= j; k++)
            {
                if (all[k].First)
                {
                    rankSumX += rank;
                }
            }
            double t = j - i + 1;
            ties += t * t * t - t;
            i = j + 1;
        }

        double u = rankSumX - n1 * (n1 + 1) / 2.0;
        double mean = n1 * (double)n2 / 2;
        double variance = n1 * (double)n2 / 12 * (n + 1 - ties / ((double)n * (n - 1)));
        if (variance <= 0)
        {
            return new Result(u, 0, 1);
        }
        double z = Math.Max(0, Math.Abs(u - mean) - 0.5) / Math.Sqrt(variance);
        return new Result(u, z, Normal.TwoSidedP(z));
    }
}
