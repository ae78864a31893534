using System.Globalization;

namespace IpcBench.Reporting.Charts;

/// <summary>
/// A logarithmic axis from <see cref="Min"/> to <see cref="Max"/>, mapped onto pixels. Latencies
/// span decades (a shared-memory round trip and a Nagle stall differ ten-thousandfold), which a
/// linear axis would flatten into one line at the bottom.
/// </summary>
internal sealed class LogScale
{
    private static readonly int[] Steps = [1, 2, 5];

    private readonly double _from;
    private readonly double _to;

    /// <param name="from">The pixel of <paramref name="min"/>.</param>
    /// <param name="to">The pixel of <paramref name="max"/> (smaller than <paramref name="from"/> for a y axis).</param>
    public LogScale(double min, double max, double from, double to)
    {
        Min = min;
        Max = max;
        _from = from;
        _to = to;
    }

    public double Min { get; }

    public double Max { get; }

    public double Map(double value)
    {
        double v = Math.Clamp(value, Min, Max);
        return _from + (Math.Log10(v) - Math.Log10(Min)) / (Math.Log10(Max) - Math.Log10(Min)) * (_to - _from);
    }

    /// <summary>
    /// Bounds on the 1-2-5 sequence around the data, at least a factor of 4 apart so that a flat
    /// series does not fill the whole height with noise.
    /// </summary>
    public static (double Min, double Max) NiceBounds(IEnumerable<double> values)
    {
        var positive = values.Where(v => v > 0 && double.IsFinite(v)).ToList();
        if (positive.Count == 0)
        {
            return (1, 10);
        }
        double lo = StepAtOrBelow(positive.Min());
        double hi = StepAtOrAbove(positive.Max());
        while (hi / lo < 4)
        {
            lo = StepAtOrBelow(lo * 0.99);
            hi = StepAtOrAbove(hi * 1.01);
        }
        return (lo, hi);
    }

    /// <summary>Grid values: every m x 10^k inside the bounds; major at powers of ten; labelled at those, and at 2 and 5 when the axis spans few decades.</summary>
    public IEnumerable<(double Value, bool Major, bool Labelled)> Ticks()
    {
        double decades = Math.Log10(Max / Min);
        for (int k = (int)Math.Floor(Math.Log10(Min)); k <= (int)Math.Ceiling(Math.Log10(Max)); k++)
        {
            for (int m = 1; m <= 9; m++)
            {
                double v = m * Math.Pow(10, k);
                if (v < Min * 0.999 || v > Max * 1.001)
                {
                    continue;
                }
                bool major = m == 1;
                yield return (v, major, major || (decades <= 2.5 && m is 2 or 5));
            }
        }
    }

    /// <summary>A latency tick label: "20 us", "1 ms", "2 s".</summary>
    public static string LatencyLabel(double us) => us switch
    {
        >= 1e6 => F(us / 1e6) + " s",
        >= 1e3 => F(us / 1e3) + " ms",
        _ => F(us) + " us",
    };

    private static string F(double v) => v.ToString("0.###", CultureInfo.InvariantCulture);

    private static double StepAtOrBelow(double v)
    {
        double decade = Math.Pow(10, Math.Floor(Math.Log10(v)));
        return Steps.Select(s => s * decade).Where(s => s <= v * 1.000001).DefaultIfEmpty(decade).Max();
    }

    private static double StepAtOrAbove(double v)
    {
        double decade = Math.Pow(10, Math.Floor(Math.Log10(v)));
        return Steps.Select(s => s * decade).Append(10 * decade).Where(s => s >= v * 0.999999).Min();
    }
}
