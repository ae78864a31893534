using System.Diagnostics;

namespace IpcBench.Core.Measurement;

/// <summary>
/// Every request's round trip, in Stopwatch ticks, kept in a buffer allocated up front so that
/// recording costs a store and no allocation. Percentiles are exact, over requests (not over
/// averages of batches). When the buffer is full it keeps the first samples, or with
/// <paramref name="keepLatest"/> the latest ones (a ring: what a benchmark harness wants, whose
/// measured iterations come last).
/// </summary>
public sealed class LatencyRecorder(int capacity, bool keepLatest = false)
{
    private readonly long[] _ticks = new long[capacity];
    private int _count;
    private int _next;
    private long _dropped;

    public int Count => _count;

    /// <summary>Samples recorded but not kept (the oldest in ring mode, the newest otherwise).</summary>
    public long Dropped => _dropped;

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
            _dropped++;
        }
        else
        {
            _dropped++;
        }
    }

    public void Reset()
    {
        _count = 0;
        _next = 0;
        _dropped = 0;
    }

    public LatencySummary Summarize() => LatencySummary.FromTicks(_ticks.AsSpan(0, _count));
}

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
        double sum = 0;
        foreach (long t in sorted)
        {
            sum += t;
        }
        return new LatencySummary(
            sorted.Length,
            ToUs(sorted[0]),
            ToUs(Percentile(sorted, 50)),
            ToUs(Percentile(sorted, 90)),
            ToUs(Percentile(sorted, 99)),
            ToUs(Percentile(sorted, 99.9)),
            ToUs(sorted[^1]),
            sum / sorted.Length * 1e6 / Stopwatch.Frequency);
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
