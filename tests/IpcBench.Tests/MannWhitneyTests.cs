using IpcBench.Reporting.Statistics;

namespace IpcBench.Tests;

public class MannWhitneyTests
{
    [Fact]
    public void Matches_the_scipy_documentation_example()
    {
        // SciPy's mannwhitneyu documentation: males vs females, method="asymptotic",
        // gives statistic 17.0 and p-value 0.11134688653314041.
        var r = MannWhitney.Test([19, 22, 16, 29, 24], [20, 11, 17, 12]);
        Assert.Equal(17, r.U);
        Assert.Equal(0.11134688653314041, r.P, 6);
    }

    [Fact]
    public void Fully_separated_samples_by_hand()
    {
        // x below every y: U = 0. mean 12.5, variance 5*5*11/12 = 22.9167, no ties.
        // z = (12.5 - 0.5) / 4.7871 = 2.50672; p = erfc(2.50672 / sqrt 2) = 0.0121858.
        var r = MannWhitney.Test([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]);
        Assert.Equal(0, r.U);
        Assert.Equal(2.50672, r.Z, 4);
        Assert.Equal(0.0121858, r.P, 6);
    }

    [Fact]
    public void Ties_share_their_mean_rank_and_shrink_the_variance_by_hand()
    {
        // Pooled and sorted: 1 2 2 3 3 3 4 4 4 5 5 6 (x: 1 2 2 3 3 4; y: 3 4 4 5 5 6).
        // Ranks: 1, 2.5, 2.5, 5, 5, 5, 8, 8, 8, 10.5, 10.5, 12. R(x) = 1+2.5+2.5+5+5+8 = 24, U = 24 - 21 = 3.
        // Ties: (2,2) (3,3,3) (4,4,4) (5,5): sum t^3 - t = 6 + 24 + 24 + 6 = 60.
        // variance = 36/12 * (13 - 60/132) = 37.6364; z = (18 - 3 - 0.5) / 6.13485 = 2.363547; p = 0.0181009.
        var r = MannWhitney.Test([1, 2, 2, 3, 3, 4], [3, 4, 4, 5, 5, 6]);
        Assert.Equal(3, r.U);
        Assert.Equal(2.363547, r.Z, 5);
        Assert.Equal(0.0181009, r.P, 6);
    }

    [Fact]
    public void Swapping_the_samples_keeps_p_and_mirrors_u()
    {
        double[] x = [3.1, 4.5, 2.2, 9.9, 5.0, 5.0], y = [1.0, 2.2, 0.5, 3.0];
        var xy = MannWhitney.Test(x, y);
        var yx = MannWhitney.Test(y, x);
        Assert.Equal(xy.P, yx.P, 12);
        Assert.Equal(x.Length * y.Length, xy.U + yx.U);
    }

    [Fact]
    public void Identical_or_empty_samples_tell_nothing()
    {
        Assert.Equal(1, MannWhitney.Test([5, 5, 5], [5, 5]).P);
        Assert.Equal(1, MannWhitney.Test([1, 2, 3], [1, 2, 3]).P);
        Assert.Equal(1, MannWhitney.Test([], [1, 2]).P);
    }

    [Fact]
    public void The_normal_tail_matches_tabulated_values()
    {
        Assert.Equal(0.05, Normal.TwoSidedP(1.959964), 6);
        Assert.Equal(0.01, Normal.TwoSidedP(2.575829), 6);
        Assert.Equal(1, Normal.TwoSidedP(0), 6);
        Assert.Equal(2 - Normal.Erfc(0.7), Normal.Erfc(-0.7), 12);
    }
}
