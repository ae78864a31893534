using IpcBench.Reporting.Comparison;

namespace IpcBench.Tests;

/// <summary>The launch-level ratio and its interval against what is known by hand and by counting.</summary>
public class LaunchRatioTests
{
    [Fact]
    public void Four_launches_a_side_give_the_widest_interval_the_extremes_at_97_percent()
    {
        // n = m = 4: P(U = 0) = 1/70 <= 2.5%, P(U <= 1) = 2/70 is not; k = 1: the smallest and largest of the 16 ratios.
        var r = LaunchRatio.Of([10, 11, 12, 13], [20, 21, 22, 23])!;
        Assert.Equal(20.0 / 13, r.Low, 9);
        Assert.Equal(23.0 / 10, r.High, 9);
        Assert.Equal(1 - 2.0 / 70, r.Confidence, 9);
    }

    [Fact]
    public void Six_launches_a_side_take_the_sixth_ratio_from_each_end()
    {
        // n = m = 6: U's counts from 0 are 1, 1, 2, 3, 5, 7 (19 of C(12,6) = 924 orderings <= 2.5%) and then 9: k = 6.
        double[] a = [10, 10.5, 11, 11.5, 12, 12.5];
        double[] b = [9, 10, 11, 12, 13, 14];
        double[] ratios = [.. b.SelectMany(y => a.Select(x => y / x)).Order()];
        var r = LaunchRatio.Of(a, b)!;
        Assert.Equal(ratios[5], r.Low, 9);
        Assert.Equal(ratios[^6], r.High, 9);
        Assert.Equal(1 - 2 * 19.0 / 924, r.Confidence, 9);
    }

    [Theory]
    [InlineData(1, 1)]
    [InlineData(2, 5)]
    [InlineData(3, 7)]
    [InlineData(5, 5)]
    [InlineData(7, 4)]
    public void The_rank_behind_the_interval_is_the_one_counting_every_ordering_gives(int n, int m)
    {
        // Every way to place n baseline launches among n + m, each U counted: the null distribution by brute force.
        var counts = new long[n * m + 1];
        foreach (int mask in Enumerable.Range(0, 1 << (n + m)).Where(mask => System.Numerics.BitOperations.PopCount((uint)mask) == n))
        {
            int u = 0, currentBelow = 0;
            for (int bit = 0; bit < n + m; bit++)
            {
                if ((mask & (1 << bit)) != 0) { u += currentBelow; } else { currentBelow++; }
            }
            counts[u]++;
        }
        double total = counts.Sum();
        int k = 0;
        double tail = 0;
        while (tail + counts[k] / total <= 0.025) { tail += counts[k++] / total; }

        double[] a = [.. Enumerable.Range(0, n).Select(i => 10.0 + i)];
        double[] b = [.. Enumerable.Range(0, m).Select(j => 10.3 + 1.7 * j)];
        var r = LaunchRatio.Of(a, b)!;
        double[] ratios = [.. b.SelectMany(y => a.Select(x => y / x)).Order()];
        if (k == 0)
        {
            Assert.False(r.Bounded);
        }
        else
        {
            Assert.Equal(ratios[k - 1], r.Low, 9);
            Assert.Equal(ratios[^k], r.High, 9);
            Assert.Equal(1 - 2 * tail, r.Confidence, 9);
        }
    }

    [Fact]
    public void A_side_of_three_launches_has_no_interval_and_four_is_the_fewest_that_does()
    {
        Assert.False(LaunchRatio.Of([10, 11, 12], [20, 21, 22])!.Bounded);
        Assert.Equal(4, LaunchRatio.FewestLaunches());
    }

    [Fact]
    public void The_estimate_is_the_factor_between_two_sides_alike_but_for_it()
    {
        double[] a = [19.7, 25.2, 26.3, 28.5, 22.0, 24.1];
        var r = LaunchRatio.Of(a, [.. a.Select(x => x * 1.3)])!;
        Assert.Equal(1.3, r.Estimate, 9);
        Assert.InRange(1.3, r.Low, r.High);
        Assert.Equal(1, LaunchRatio.Of(a, a)!.Estimate, 9);
    }

    [Fact]
    public void A_thousand_launches_a_side_still_give_an_interval_around_the_factor()
    {
        var random = new Random(5);
        double[] a = [.. Enumerable.Range(0, 1000).Select(_ => 20 + 5 * random.NextDouble())];
        double[] b = [.. Enumerable.Range(0, 1000).Select(_ => 1.2 * (20 + 5 * random.NextDouble()))];
        var r = LaunchRatio.Of(a, b)!;
        Assert.True(r.Bounded);
        Assert.InRange(r.Low, 1.15, 1.2);
        Assert.InRange(r.High, 1.2, 1.25);
    }

    [Fact]
    public void A_p50_that_is_not_above_0_gives_no_ratio()
    {
        Assert.Null(LaunchRatio.Of([0, 1, 2, 3], [1, 2, 3, 4]));
        Assert.Null(LaunchRatio.Of([], [1, 2, 3, 4]));
        Assert.Null(LaunchRatio.Of([1, 2, double.NaN, 3], [1, 2, 3, 4]));
    }
}

/// <summary>The median of a case's launches and its interval, against the binomial by hand.</summary>
public class LaunchMedianTests
{
    [Fact]
    public void Six_launches_bound_the_median_by_the_least_and_the_most_and_five_do_not()
    {
        // n = 6: P(B = 0) = 1/64 <= 2.5%, P(B <= 1) = 7/64 is not: k = 1.
        var (median, interval) = LaunchMedian.Of([28.5, 19.7, 25.2, 26.3, 21.0, 20.0]);
        Assert.Equal(21.0, median); // the lower middle: a launch's own p50
        Assert.Equal((19.7, 28.5), interval);
        Assert.Null(LaunchMedian.Of([1, 2, 3, 4, 5]).Interval);
        Assert.Equal(3, LaunchMedian.Of([1, 2, 3, 4, 5]).Median);
    }

    [Fact]
    public void Twenty_launches_take_the_sixth_from_each_end()
    {
        // n = 20: P(B <= 5) = 0.0207 <= 2.5% and P(B <= 6) = 0.0577 is not: k = 6, the 6th and the 15th.
        double[] launches = [.. Enumerable.Range(1, 20).Select(i => (double)i).Reverse()];
        Assert.Equal((6.0, 15.0), LaunchMedian.Of(launches).Interval);
        Assert.Equal(10, LaunchMedian.Of(launches).Median);
    }
}

/// <summary>Two levels of launches told from one spread of them.</summary>
public class BimodalityTests
{
    [Fact]
    public void Twenty_launches_on_two_levels_give_each_level_and_its_count()
    {
        // uds here: 17-18 us or 21-27 us a launch, whichever the process takes.
        var levels = Bimodality.Of([17.4, 23.9, 17.8, 21.6, 26.8, 17.2, 24.1, 22.5, 17.6, 25.0,
            17.5, 17.3, 23.0, 21.9, 17.9, 24.4, 26.0, 17.6, 22.8, 25.5])!;
        Assert.Equal((8, 12), (levels.LowCount, levels.HighCount));
        Assert.InRange(levels.Low, 17.5, 17.6);
        Assert.InRange(levels.High, 23.9, 24.1);
    }

    [Fact]
    public void One_level_spread_by_noise_is_not_two_though_any_split_of_it_explains_most_of_its_spread()
    {
        var random = new Random(3);
        for (int sample = 0; sample < 10; sample++)
        {
            double[] one = [.. Enumerable.Range(0, 30).Select(_ => 25 * Math.Exp(0.05 * (random.NextDouble() + random.NextDouble() + random.NextDouble() - 1.5)))];
            Assert.Null(Bimodality.Of(one));
        }
    }

    [Fact]
    public void Tcp_launches_spread_over_several_levels_are_not_called_two()
    {
        // 48 launch p50s of tcp 1 B, same-core, from the A/B gate's trials of 2026-11-27 (ci-gate.md).
        double[] tcp = [21.56, 21.576, 21.608, 21.624, 21.736, 21.816, 21.848, 22.104, 23.176, 24.712, 24.92, 26.072, 26.36, 27.192,
            27.528, 27.672, 27.928, 27.928, 27.944, 27.944, 27.944, 27.976, 27.992, 28.152, 28.184, 28.2, 28.6, 28.632, 28.648,
            28.872, 29.16, 29.368, 29.944, 30.28, 31.656, 31.656, 31.816, 32.136, 32.168, 32.976, 33.296, 34.064, 35.248, 35.76,
            36.464, 39.248, 39.312, 39.6];
        Assert.Null(Bimodality.Of(tcp));
    }

    [Fact]
    public void Levels_closer_than_5_percent_or_fewer_than_eight_launches_are_not_reported()
    {
        Assert.NotNull(Bimodality.Of([21.60, 21.61, 21.60, 21.62, 28.00, 28.01, 28.00, 28.02]));
        Assert.Null(Bimodality.Of([21.60, 21.61, 21.60, 21.62, 22.40, 22.41, 22.40, 22.42])); // 3.7% apart, however tight
        Assert.Null(Bimodality.Of([21.60, 21.61, 21.60, 28.00, 28.01, 28.00, 28.02]));
    }
}
