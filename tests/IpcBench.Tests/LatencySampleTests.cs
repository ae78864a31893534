using System.Diagnostics;
using IpcBench.Harness.Measurement;

namespace IpcBench.Tests;

public class LatencySampleTests
{
    private static long Us(double us) => (long)Math.Round(us * Stopwatch.Frequency / 1e6);

    private static LatencyRecorder Recorder(int n)
    {
        var recorder = new LatencyRecorder();
        for (int i = 1; i <= n; i++)
        {
            recorder.Record(Us(i));
        }
        return recorder;
    }

    [Fact]
    public void The_curve_has_the_nearest_rank_percentiles_from_min_to_max()
    {
        var curve = Recorder(10_000).Curve();
        Assert.Equal(LatencyRecorder.CurvePercentiles, curve.Select(p => p.P));
        double[] expected = [1, 5000, 7500, 9000, 9500, 9900, 9950, 9990, 9999, 10_000];
        Assert.All(expected.Zip(curve), pair => Assert.InRange(pair.Second.Us, pair.First * 0.9995, pair.First * 1.0005));
        Assert.Equal(1, curve[0].Us, 3); // the ends are the exact min and max
        Assert.Equal(10_000, curve[^1].Us, 3);
        Assert.Empty(new LatencyRecorder().Curve());
    }

    [Fact]
    public void The_sample_is_a_subset_of_distinct_recorded_values_and_reproducible()
    {
        var recorder = Recorder(100_000);
        double[] a = recorder.Sample();
        Assert.Equal(LatencyRecorder.DefaultSampleSize, a.Length);
        Assert.Equal(a.Length, a.Select(v => Math.Round(v)).Distinct().Count()); // without replacement
        Assert.All(a, v => Assert.InRange(v, 0.5, 100_000.5));
        Assert.Equal(a, Recorder(100_000).Sample()); // a fixed seed: the same round trips, the same sample
    }

    [Fact]
    public void The_sample_is_spread_over_the_whole_run()
    {
        // Uniform over 1..100000: each tenth of the values should hold about 200 of 2000 samples.
        double[] sample = Recorder(100_000).Sample();
        var perTenth = sample.GroupBy(v => Math.Min(9, (int)(v / 10_000))).ToDictionary(g => g.Key, g => g.Count());
        Assert.Equal(10, perTenth.Count);
        Assert.All(perTenth.Values, n => Assert.InRange(n, 140, 260));
        Assert.InRange(sample.Average(), 47_000, 53_000);
    }

    [Fact]
    public void Fewer_samples_than_asked_gives_them_all()
    {
        Assert.Equal([1, 2, 3], Recorder(3).Sample().Select(v => Math.Round(v)));
        Assert.Empty(new LatencyRecorder().Sample());
    }

    [Fact]
    public void Merged_samples_draw_from_each_part_in_proportion_to_its_requests()
    {
        // A quarter of the requests (one client's 100,000 fast ones beside another's 300,000 slow ones): a quarter of the sample.
        var fast = new LatencyRecorder();
        var slow = new LatencyRecorder();
        for (int i = 0; i < 100_000; i++) fast.Record(Us(1));
        for (int i = 0; i < 300_000; i++) slow.Record(Us(1000));
        double[] sample = LatencyRecorder.Combine([fast, slow]).Sample();
        Assert.Equal(LatencyRecorder.DefaultSampleSize, sample.Length);
        Assert.InRange(sample.Count(v => v < 10), 440, 560);
    }
}
