using System.Diagnostics;
using HdrHistogram;

namespace IpcBench.Harness.Measurement;

/// <summary>
/// Every request's round trip, in Stopwatch ticks: counted in an HdrHistogram (three significant digits, so a
/// percentile is within 0.05% of the request's own time), with the exact minimum, maximum and sum beside it, and a
/// reservoir of raw samples for the rank test of <c>ipcbench compare</c>. Its memory is fixed whatever the count or
/// the duration (about 270 KB), recording costs no allocation, and recorders merge without loss: the clients of one
/// process, and the client processes of one run (<see cref="Export"/>).
/// </summary>
public sealed class LatencyRecorder
{
    /// <summary>The longest round trip counted as itself; a longer one counts as this (its exact time stays the max).</summary>
    private static readonly long HighestTicks = Stopwatch.Frequency * 3600;

    private const int SignificantDigits = 3;

    private readonly LongHistogram _histogram = new(1, HighestTicks, SignificantDigits);
    private readonly LatencyReservoir _reservoir = new(DefaultSampleSize, SampleSeed);
    private long _min = long.MaxValue;
    private long _max;
    private long _sum;

    public long Count => _histogram.TotalCount;

    public void Record(long ticks)
    {
        _histogram.RecordValue(Math.Clamp(ticks, 1, HighestTicks));
        _min = Math.Min(_min, ticks);
        _max = Math.Max(_max, ticks);
        _sum += ticks;
        _reservoir.Offer(ticks);
    }

    public void Reset()
    {
        _histogram.Reset();
        _reservoir.Clear();
        (_min, _max, _sum) = (long.MaxValue, 0, 0);
    }

    /// <summary>One recorder with every request the <paramref name="parts"/> recorded: percentiles over all requests of all clients.</summary>
    public static LatencyRecorder Combine(IReadOnlyList<LatencyRecorder> parts)
    {
        var all = new LatencyRecorder();
        foreach (var part in parts)
        {
            all._histogram.Add(part._histogram);
            all._min = Math.Min(all._min, part._min);
            all._max = Math.Max(all._max, part._max);
            all._sum += part._sum;
        }
        all._reservoir.Merge([.. parts.Select(p => p._reservoir)]);
        return all;
    }

    public LatencySummary Summarize() => Count == 0
        ? LatencySummary.Empty
        : new LatencySummary(
            (int)Math.Min(Count, int.MaxValue),
            LatencySummary.ToUs(_min),
            LatencySummary.ToUs(TicksAt(50)),
            LatencySummary.ToUs(TicksAt(90)),
            LatencySummary.ToUs(TicksAt(99)),
            LatencySummary.ToUs(TicksAt(99.9)),
            LatencySummary.ToUs(_max),
            LatencySummary.ToUs(_sum) / Count);

    /// <summary>
    /// The <paramref name="p"/>th percentile (nearest rank): the middle of the histogram's bucket that holds it, never
    /// outside the exact minimum and maximum (so 0 and 100 are those).
    /// </summary>
    private long TicksAt(double p) => p switch
    {
        <= 0 => _min,
        >= 100 => _max,
        _ => Math.Clamp(_histogram.MedianEquivalentValue(_histogram.GetValueAtPercentile(p)), _min, _max),
    };

    /// <summary>A loop's result over these round trips: their summary, curve and sample.</summary>
    public LoopResult Result(long errors, Cost cost, ServerStats.ServerShare? server) =>
        new(Summarize(), errors, cost, server?.CpuUsPerOp) { ServerAnatomy = server?.Anatomy, Curve = Curve(), SamplesUs = Sample(), Recorder = this };

    /// <summary>The percentiles a latency curve is drawn through: the body, then ever finer steps into the tail.</summary>
    public static IReadOnlyList<double> CurvePercentiles { get; } = [0, 50, 75, 90, 95, 99, 99.5, 99.9, 99.99, 100];

    /// <summary>How many raw samples are kept for the rank test: enough for it, small enough to store per case.</summary>
    public const int DefaultSampleSize = 2000;

    /// <summary>The seed of the reservoir: a fixed one, so that the same round trips give the same sample.</summary>
    public const int SampleSeed = 20261122;

    /// <summary>The round trips at each of <see cref="CurvePercentiles"/>, in microseconds; empty when nothing was recorded.</summary>
    public PercentilePoint[] Curve() => Count == 0
        ? []
        : [.. CurvePercentiles.Select(p => new PercentilePoint(p, LatencySummary.ToUs(TicksAt(p))))];

    /// <summary>
    /// A uniform random sample, without replacement, of up to <see cref="DefaultSampleSize"/> recorded round trips in
    /// microseconds: what a statistical test between two runs needs. All of them when there are no more than that, in
    /// the order recorded.
    /// </summary>
    public double[] Sample() => [.. _reservoir.Kept.Select(LatencySummary.ToUs)];

    /// <summary>
    /// The histogram in HdrHistogram's own compressed encoding (V2, DEFLATE), base64, its values in nanoseconds whatever
    /// the clock's tick: the payload of a line of an HdrHistogram log (<c>.hlog</c>), which HdrHistogram's tools read
    /// (HistogramLogProcessor, the plotters). Null when nothing was recorded.
    /// </summary>
    public string? EncodedNanoseconds()
    {
        if (Count == 0)
        {
            return null;
        }
        var nanoseconds = new LongHistogram(1, HighestTicks * NanosecondsPerTick + 1, SignificantDigits);
        foreach (var bucket in _histogram.RecordedValues())
        {
            nanoseconds.RecordValueWithCount(Math.Max(1, bucket.ValueIteratedTo * NanosecondsPerTick), bucket.CountAtValueIteratedTo);
        }
        var buffer = HdrHistogram.Utilities.ByteBuffer.Allocate(nanoseconds.GetNeededByteBufferCapacity());
        byte[] bytes = new byte[nanoseconds.EncodeIntoCompressedByteBuffer(buffer)];
        buffer.Position = 0; // the library's buffer hands its bytes out one at a time only
        for (int i = 0; i < bytes.Length; i++)
        {
            bytes[i] = buffer.Get();
        }
        return Convert.ToBase64String(bytes);
    }

    /// <summary>Nanoseconds a Stopwatch tick: 1 on Linux, 100 on Windows.</summary>
    private static readonly long NanosecondsPerTick = Math.Max(1, 1_000_000_000 / Stopwatch.Frequency);

    /// <summary>
    /// What another process needs to merge this recorder into its own (a client process's hand-off): the histogram as
    /// its non-empty buckets (a value in each and its count), which record into a histogram of the same precision as
    /// they were. Not HdrHistogram's compressed log format: the 2.5.0 reader takes what one read of its DeflateStream
    /// returns for the whole payload, which .NET 6 and later may fill in part, and a histogram of many buckets fails
    /// to read back ("The buffer does not contain the indicated payload amount").
    /// </summary>
    public Exported Export()
    {
        var buckets = _histogram.RecordedValues().Select(v => (v.ValueIteratedTo, v.CountAtValueIteratedTo)).ToArray();
        return new Exported([.. buckets.Select(b => b.ValueIteratedTo)], [.. buckets.Select(b => b.CountAtValueIteratedTo)],
            _min, _max, _sum, _reservoir.Seen, [.. _reservoir.Kept]);
    }

    /// <summary>The recorder that <paramref name="exported"/> was made from.</summary>
    public static LatencyRecorder Import(Exported exported)
    {
        if (exported.BucketTicks.Length != exported.BucketCounts.Length)
        {
            throw new ArgumentException($"{exported.BucketTicks.Length} buckets but {exported.BucketCounts.Length} counts");
        }
        var recorder = new LatencyRecorder();
        for (int i = 0; i < exported.BucketTicks.Length; i++)
        {
            recorder._histogram.RecordValueWithCount(Math.Clamp(exported.BucketTicks[i], 1, HighestTicks), exported.BucketCounts[i]);
        }
        (recorder._min, recorder._max, recorder._sum) = (exported.MinTicks, exported.MaxTicks, exported.SumTicks);
        recorder._reservoir.Restore(exported.Seen, exported.SampleTicks);
        return recorder;
    }

    /// <param name="BucketTicks">A value in each non-empty bucket of the histogram, in Stopwatch ticks.</param>
    /// <param name="BucketCounts">How many round trips each of those buckets holds.</param>
    /// <param name="Seen">How many round trips the sample was drawn from.</param>
    public sealed record Exported(long[] BucketTicks, long[] BucketCounts, long MinTicks, long MaxTicks, long SumTicks, long Seen, long[] SampleTicks);
}

/// <summary>One point of a latency curve: the <paramref name="P"/>th percentile (0 to 100) is <paramref name="Us"/> microseconds.</summary>
public readonly record struct PercentilePoint(double P, double Us);

/// <summary>Latency percentiles of a set of requests, in microseconds.</summary>
public sealed record LatencySummary(int Count, double MinUs, double P50Us, double P90Us, double P99Us, double P999Us, double MaxUs, double MeanUs)
{
    public static readonly LatencySummary Empty = new(0, 0, 0, 0, 0, 0, 0, 0);

    public static double ToUs(long ticks) => ticks * 1e6 / Stopwatch.Frequency;
}
