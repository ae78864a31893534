using IpcBench.Reporting.Comparison;

namespace IpcBench.Tests;

public class RankTestTests
{
    [Fact]
    public void Small_samples_get_the_exact_p_value()
    {
        // SciPy's mannwhitneyu documentation example (males vs females): U = 17, exact two-sided p = 0.1111.
        Assert.Equal(0.1111, RankTest.PValue([19, 22, 16, 29, 24], [20, 11, 17, 12]), 4);
        // Fully separated, 5 and 5: the most extreme of C(10,5) = 252 orderings, both sides: 2/252.
        Assert.Equal(2.0 / 252, RankTest.PValue([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]), 9);
    }

    [Fact]
    public void Large_samples_give_a_p_value_where_perfolizer_alone_overflows()
    {
        var random = new Random(7);
        double[] x = [.. Enumerable.Range(0, 2000).Select(_ => 10 + random.NextDouble())];
        double[] shifted = [.. x.Select(v => v + 0.2)];
        double[] again = [.. Enumerable.Range(0, 2000).Select(_ => 10 + random.NextDouble())];

        Assert.InRange(RankTest.PValue(x, shifted), 0, 1e-6);
        Assert.InRange(RankTest.PValue(x, again), 0.01, 1);
    }

    [Fact]
    public void Swapping_the_samples_keeps_p()
    {
        double[] x = [3.1, 4.5, 2.2, 9.9, 5.0, 5.0], y = [1.0, 2.2, 0.5, 3.0];
        Assert.Equal(RankTest.PValue(x, y), RankTest.PValue(y, x), 12);
    }

    [Fact]
    public void Identical_or_empty_samples_tell_nothing()
    {
        Assert.Equal(1, RankTest.PValue([5, 5, 5], [5, 5]));
        Assert.Equal(1, RankTest.PValue([1, 2, 3], [1, 2, 3]));
        Assert.Equal(1, RankTest.PValue([], [1, 2]));
    }
}
