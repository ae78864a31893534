namespace IpcBench.Reporting.Comparison;

/// <summary>
/// The median of a case's launches (a p50 each) and its distribution-free 95% interval: the k-th smallest and largest
/// launch, k from the binomial distribution of how many launches fall below the true median (the sign test's
/// interval). It needs six launches; below that the least and the most are all there is. Of an even count the median is
/// the lower middle launch: a figure one launch measured, the median round whose figures a pooled run reports
/// (<see cref="RunPool"/>), so that a report's tables and its ranking say the same.
/// </summary>
public static class LaunchMedian
{
    /// <summary>The median launch of <paramref name="launches"/>, and its interval (null: fewer than six launches).</summary>
    public static (double Median, (double Low, double High)? Interval) Of(IReadOnlyList<double> launches, double confidence = LaunchRatio.DefaultConfidence)
    {
        ArgumentOutOfRangeException.ThrowIfZero(launches.Count);
        double[] sorted = [.. launches.Order()];
        int n = sorted.Length;
        double median = sorted[MedianIndex(n)];
        double tail = 0, alpha = (1 - confidence) / 2, below = Math.Pow(0.5, n); // P(B = 0) for B ~ Binomial(n, 1/2)
        int k = 0;
        while (k < n / 2 && tail + below <= alpha)
        {
            tail += below;
            below *= (n - k) / (double)(k + 1); // P(B = k + 1)
            k++;
        }
        return (median, k == 0 ? null : (sorted[k - 1], sorted[n - k]));
    }

    /// <summary>"[17.2-18.0] (17.0-24.5)": the median's interval where there is one, then the least and the most launch.</summary>
    public static string Spread(IReadOnlyList<double> launches) =>
        (Of(launches).Interval is { } range ? FormattableString.Invariant($"[{range.Low:0.0}-{range.High:0.0}] ") : "")
        + FormattableString.Invariant($"({launches.Min():0.0}-{launches.Max():0.0})");

    /// <summary>Where the median launch of <paramref name="count"/> sorted ascending is: of an even count, the lower middle.</summary>
    public static int MedianIndex(int count) => (count - 1) / 2;

    /// <summary>The median of values sorted ascending (of an even count, the mean of the middle two).</summary>
    public static double OfSorted(IReadOnlyList<double> sorted) =>
        sorted.Count % 2 == 1 ? sorted[sorted.Count / 2] : (sorted[sorted.Count / 2 - 1] + sorted[sorted.Count / 2]) / 2;
}
