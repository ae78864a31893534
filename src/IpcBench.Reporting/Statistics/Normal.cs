namespace IpcBench.Reporting.Statistics;

/// <summary>The standard normal distribution's tail, which .NET does not provide.</summary>
public static class Normal
{
    /// <summary>P(|Z| &gt;= z) for a standard normal Z: the two-sided p-value of a z score.</summary>
    public static double TwoSidedP(double z) => Math.Min(1, Erfc(Math.Abs(z) / Math.Sqrt(2)));

    /// <summary>
    /// The complementary error function, by the Chebyshev fit in Numerical Recipes (Press et al.,
    /// 2nd ed., section 6.2), with a relative error under 1.2e-7 everywhere: ample for p-values
    /// compared against 0.01.
    /// </summary>
    public static double Erfc(double x)
    {
        double z = Math.Abs(x);
        double t = 1 / (1 + 0.5 * z);
        double r = t * Math.Exp(-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806
            + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))));
        return x >= 0 ? r : 2 - r;
    }
}
