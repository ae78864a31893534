using Perfolizer.Mathematics.Distributions.ContinuousDistributions;

namespace IpcBench.Reporting.Comparison;

/// <summary>A ratio current/baseline with its confidence interval; the interval is (0, infinity) when the launches are too few to bound it.</summary>
/// <param name="Confidence">The interval's exact coverage (at least what was asked, as the rank distribution allows).</param>
public sealed record RatioInterval(double Estimate, double Low, double High, double Confidence)
{
    /// <summary>Whether there were launches enough for an interval at all.</summary>
    public bool Bounded => Low > 0 && double.IsFinite(High);
}

/// <summary>
/// How much slower one set of process launches is than another, from each launch's p50: the unit is the launch, since
/// what varies from run to run is the process (which level a transport's p50 lands on, where its memory went), not the
/// request. The estimate is the Hodges-Lehmann shift of the launches' log p50s (the median of every pairwise log ratio),
/// the interval the distribution-free one that inverts the Mann-Whitney test (Bauer 1972; Hollander and Wolfe): the k-th
/// smallest and largest pairwise ratios, k from the exact null distribution of U. It assumes only that the two sides'
/// launch p50s differ by a factor, whatever their spread or shape: a bimodal transport widens the interval, and never
/// fakes a difference.
/// </summary>
public static class LaunchRatio
{
    public const double DefaultConfidence = 0.95;

    /// <summary>The ratio of <paramref name="current"/>'s launch p50s to <paramref name="baseline"/>'s; null when a side has none or a p50 is not above 0.</summary>
    public static RatioInterval? Of(IReadOnlyList<double> baseline, IReadOnlyList<double> current, double confidence = DefaultConfidence)
    {
        if (baseline.Count == 0 || current.Count == 0 || baseline.Concat(current).Any(p => !(p > 0) || !double.IsFinite(p)))
        {
            return null;
        }
        double[] ratios = [.. current.SelectMany(c => baseline.Select(b => Math.Log(c) - Math.Log(b))).Order()];
        double estimate = Math.Exp(LaunchMedian.OfSorted(ratios));
        int k = Rank(baseline.Count, current.Count, (1 - confidence) / 2, out double tail);
        return k == 0
            ? new RatioInterval(estimate, 0, double.PositiveInfinity, 1)
            : new RatioInterval(estimate, Math.Exp(ratios[k - 1]), Math.Exp(ratios[^k]), 1 - 2 * tail);
    }

    /// <summary>The launches a side needs, both sides alike, before an interval of <paramref name="confidence"/> exists at all.</summary>
    public static int FewestLaunches(double confidence = DefaultConfidence)
    {
        int n = 1;
        while (Rank(n, n, (1 - confidence) / 2, out _) == 0)
        {
            n++;
        }
        return n;
    }

    /// <summary>
    /// The largest k with P(U &lt; k) &lt;= <paramref name="alpha"/> under the null, U the Mann-Whitney count of sizes
    /// <paramref name="n"/> and <paramref name="m"/>; 0 when even P(U = 0) is above it. <paramref name="tail"/> is P(U &lt; k).
    /// Exact while the sides are small enough to count; past that the normal approximation, with a continuity correction.
    /// </summary>
    private static int Rank(int n, int m, double alpha, out double tail)
    {
        if ((long)n * m > ExactLimit)
        {
            double mean = n * (double)m / 2, sd = Math.Sqrt(n * (double)m * (n + m + 1) / 12);
            int approximate = Math.Max(0, (int)Math.Floor(mean + NormalDistribution.Standard.Quantile(alpha) * sd + 0.5));
            tail = approximate == 0 ? 0 : NormalDistribution.Standard.Cdf((approximate - 0.5 - mean) / sd);
            return approximate;
        }
        double[] probabilities = NullDistribution(n, m);
        tail = 0;
        int k = 0;
        while (k < probabilities.Length && tail + probabilities[k] <= alpha)
        {
            tail += probabilities[k++];
        }
        return k;
    }

    /// <summary>Sides whose pairs number more than this get the normal approximation (counting costs about the pairs squared).</summary>
    private const int ExactLimit = 2500;

    /// <summary>
    /// P(U = u) for u = 0..n*m when the two sides are alike, by the recurrence on who holds the largest launch: a
    /// baseline one (chance i/(i+j)) is above all j current ones. Sums of probabilities only: nothing cancels or overflows.
    /// </summary>
    private static double[] NullDistribution(int n, int m)
    {
        var previous = Enumerable.Range(0, m + 1).Select(_ => new[] { 1.0 }).ToArray(); // i = 0: U is 0
        for (int i = 1; i <= n; i++)
        {
            var current = new double[m + 1][];
            current[0] = [1.0];
            for (int j = 1; j <= m; j++)
            {
                var p = new double[i * j + 1];
                double baselineLargest = i / (double)(i + j);
                for (int u = 0; u < previous[j].Length; u++)
                {
                    p[u + j] += baselineLargest * previous[j][u];
                }
                for (int u = 0; u < current[j - 1].Length; u++)
                {
                    p[u] += (1 - baselineLargest) * current[j - 1][u];
                }
                current[j] = p;
            }
            previous = current;
        }
        return previous[m];
    }
}
