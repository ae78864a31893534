using System.Diagnostics;

namespace IpcBench.Core.Measurement;

/// <summary>
/// Every request's round trip, in Stopwatch ticks, kept in a buffer allocated up front so that
/// recording costs a store and no allocation. Percentiles are exact, over requests (not over
/// averages of batches). When the buffer is full it doubles (a run bound by time sizes it from an
/// estimate), or with <paramref name="keepLatest"/> keeps the latest samples (a ring: what a
/// benchmark harness wants, whose measured iterations come last).
/// </summary>
public sealed class LatencyRecorder(int capacity, bool keepLatest = false)
{
    private long[] _ticks = new long[Math.Max(capacity, 1)];
    private int _count;
    private int _next;

    public int Count => _count;

    public void Record(long ticks)
    {
        if (_count < _ticks.Length)
        {
            _ticks[_count++] = ticks;
        }
        else if (keepLatest)
        {
            _ticks[_next] = ticks;
            _next = _next + 1 == _ticks.Length ? 0 : _next + 1;
        }
        else
        {
            Array.Resize(ref _ticks, 2 * _ticks.Length);
            _ticks[_count++] = ticks;
        }
    }

    /// <summary>The samples kept, in Stopwatch ticks (in ring mode, not in the order recorded).</summary>
    public ReadOnlySpan<long> Kept => _ticks.AsSpan(0, _count);

    /// <summary>A recorder holding <paramref name="ticks"/>, e.g. another process's <see cref="Kept"/> samples.</summary>
    public static LatencyRecorder FromTicks(long[] ticks) => new(0) { _ticks = ticks.Length > 0 ? ticks : new long[1], _count = ticks.Length };

    /// <summary>One recorder with every sample the <paramref name="parts"/> kept: percentiles over all requests of all clients.</summary>
    public static LatencyRecorder Combine(IReadOnlyList<LatencyRecorder> parts)
    {
        var all = new LatencyRecorder(parts.Sum(p => p._count));
        foreach (var part in parts)
        {
            part._ticks.AsSpan(0, part._count).CopyTo(all._ticks.AsSpan(all._count));
            all._count += part._count;
        }
        return all;
    }

    public void Reset()
    {
        _count = 0;
        _next = 0;
    }

    public LatencySummary Summarize() => LatencySummary.FromTicks(_ticks.AsSpan(0, _count));

    /// <summary>A loop's result over these round trips: their summary, curve and sample.</summary>
    public LoopResult Result(long errors, Cost cost, double? serverCpuUsPerOp) =>
        new(Summarize(), errors, cost, serverCpuUsPerOp) { Curve = Curve(), SamplesUs = Sample(), Recorder = this };

    /// <summary>The percentiles a latency curve is drawn through: the body, then ever finer steps into the tail.</summary>
    public static IReadOnlyList<double> CurvePercentiles { get; } = [0, 50, 75, 90, 95, 99, 99.5, 99.9, 99.99, 100];

    /// <summary>How many samples <see cref="Sample"/> returns by default: enough for a rank test, small enough to store per case.</summary>
    public const int DefaultSampleSize = 2000;

    /// <summary>The seed of <see cref="Sample"/>: a fixed one, so that the same samples give the same subsample.</summary>
    public const int SampleSeed = 20261122;

    /// <summary>The kept samples at each of <see cref="CurvePercentiles"/> (nearest rank), in microseconds; empty when nothing was recorded.</summary>
    public PercentilePoint[] Curve()
    {
        if (_count == 0)
        {
            return [];
        }
        long[] sorted = _ticks.AsSpan(0, _count).ToArray();
        Array.Sort(sorted);
        return CurvePercentiles.Select(p => new PercentilePoint(p, LatencySummary.ToUs(LatencySummary.Percentile(sorted, p)))).ToArray();
    }

    /// <summary>
    /// A uniform random subsample, without replacement, of up to <paramref name="maxCount"/> kept
    /// samples in microseconds, in the order they were kept: what a statistical test between two
    /// runs needs, at a size a results file can hold. All of them when there are no more than that.
    /// </summary>
    public double[] Sample(int maxCount = DefaultSampleSize, int seed = SampleSeed)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(maxCount);
        int wanted = Math.Min(maxCount, _count);
        var sample = new double[wanted];
        // Selection sampling (Knuth's algorithm S): each sample is taken with probability
        // (still wanted) / (still left), which gives every subset of that size the same chance.
        var random = new Random(seed);
        int taken = 0;
        for (int i = 0; i < _count && taken < wanted; i++)
        {
            if (random.Next(_count - i) < wanted - taken)
            {
                sample[taken++] = LatencySummary.ToUs(_ticks[i]);
            }
        }
        return sample;
    }
}

/// <summary>One point of a latency curve: the <paramref name="P"/>th percentile (0 to 100) is <paramref name="Us"/> microseconds.</summary>
public readonly record struct PercentilePoint(double P, double Us);

/// <summary>Latency percentiles of a set of requests, in microseconds.</summary>
public sealed record LatencySummary(int Count, double MinUs, double P50Us, double P90Us, double P99Us, double P999Us, double MaxUs, double MeanUs)
{
    public static readonly LatencySummary Empty = new(0, 0, 0, 0, 0, 0, 0, 0);

    public static LatencySummary FromTicks(ReadOnlySpan<long> ticks)
    {
        if (ticks.IsEmpty)
        {
            return Empty;
        }
        long[] sorted = ticks.ToArray();
        Array.Sort(sorted);
        return new LatencySummary(
            sorted.Length,
            ToUs(sorted[0]),
            ToUs(Percentile(sorted, 50)),
            ToUs(Percentile(sorted, 90)),
            ToUs(Percentile(sorted, 99)),
            ToUs(Percentile(sorted, 99.9)),
            ToUs(sorted[^1]),
            sorted.Average() * 1e6 / Stopwatch.Frequency);
    }

    /// <summary>Nearest-rank percentile: the smallest sample that at least <paramref name="p"/>% of samples do not exceed.</summary>
    public static long Percentile(long[] sorted, double p)
    {
        // Rounded first, so that 99.9% of 1000 is rank 999 and not 1000 by a floating-point hair.
        int rank = (int)Math.Ceiling(Math.Round(p / 100 * sorted.Length, 6));
        return sorted[Math.Clamp(rank - 1, 0, sorted.Length - 1)];
    }

    public static double ToUs(long ticks) => ticks * 1e6 / Stopwatch.Frequency;
}
