using Perfolizer.Mathematics.Common;
using Perfolizer.Mathematics.SignificanceTesting.Base;
using Perfolizer.Mathematics.SignificanceTesting.MannWhitney;
using Perfolizer.Metrology;
using Pragmastat;

namespace IpcBench.Reporting.Comparison;

/// <summary>
/// Do two sets of per-request latencies come from the same distribution? Perfolizer's two-sided
/// Mann-Whitney U test, the statistics library under BenchmarkDotNet. Rank-based, so a handful of
/// huge outliers (a page fault, a preemption) can neither fake nor hide a shift the way they move a mean.
/// </summary>
public static class RankTest
{
    /// <summary>
    /// The most values taken from each side. Perfolizer 0.6.1 works out the variance of U as
    /// n*m*(n+m+1) in 32-bit integers, which overflows (p comes back NaN) past about 1,000 values a
    /// side. The stored samples are random subsamples already, so their first 1,000 are one too.
    /// </summary>
    public const int MaxPerSide = 1000;

    /// <summary>The two-sided p-value; 1 when either side is empty (nothing to tell).</summary>
    public static double PValue(IReadOnlyList<double> x, IReadOnlyList<double> y)
    {
        if (x.Count == 0 || y.Count == 0)
        {
            return 1;
        }
        var first = Cut(x);
        var second = Cut(y);
        // The exact distribution while Perfolizer can count it; past that the normal approximation, since
        // its default there (an Edgeworth expansion) overflows its integer moments even sooner.
        var strategy = first.Size + second.Size <= BinomialCoefficientHelper.MaxAcceptableN
            ? MannWhitneyStrategy.LoefflerExact
            : MannWhitneyStrategy.NormalApprox;
        double p = MannWhitneyTest.Instance.PerformStrategy(first, second, AlternativeHypothesis.TwoSides, Threshold.Zero, strategy).PValue;
        return double.IsNaN(p) ? throw new InvalidOperationException($"the rank test gave no p-value for {first.Size} and {second.Size} values") : p;
    }

    private static Sample Cut(IReadOnlyList<double> values) => new(values.Count <= MaxPerSide ? values : values.Take(MaxPerSide).ToArray());
}
