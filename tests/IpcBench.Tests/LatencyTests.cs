using System.Diagnostics;
using IpcBench.Contract;
using IpcBench.Harness.Measurement;

namespace IpcBench.Tests;

public class LatencyTests
{
    private static long Us(double us) => (long)(us * Stopwatch.Frequency / 1e6);

    /// <summary>Within half a bucket of three significant digits: what the histogram promises.</summary>
    private static void Near(double expected, double actual) => Assert.InRange(actual, expected * 0.9995, expected * 1.0005);

    [Fact]
    public void Percentiles_are_nearest_rank_over_requests_and_min_max_and_mean_exact()
    {
        var recorder = new LatencyRecorder();
        for (int i = 1000; i >= 1; i--)
        {
            recorder.Record(Us(i)); // 1..1000 us, in reverse order
        }
        var s = recorder.Summarize();
        Assert.Equal(1000, s.Count);
        Assert.Equal(1, s.MinUs, 3);
        Near(500, s.P50Us);
        Near(900, s.P90Us);
        Near(990, s.P99Us);
        Near(999, s.P999Us);
        Assert.Equal(1000, s.MaxUs, 3);
        Assert.Equal(500.5, s.MeanUs, 3);
    }

    [Fact]
    public void Combined_recorders_give_percentiles_over_every_sample_of_every_part()
    {
        var fast = new LatencyRecorder();
        var slow = new LatencyRecorder();
        foreach (int us in new[] { 1, 2, 3 }) fast.Record(Us(us));
        foreach (int us in new[] { 100, 200 }) slow.Record(Us(us));
        var s = LatencyRecorder.Combine([fast, slow]).Summarize();
        Assert.Equal(5, s.Count);
        Near(3, s.P50Us);
        Assert.Equal(1, s.MinUs, 3);
        Assert.Equal(200, s.MaxUs, 3);
        Assert.Equal(61.2, s.MeanUs, 3);
    }

    [Fact]
    public void A_recorder_exported_by_one_process_imports_whole_in_another()
    {
        // Round trips from 1 us to seconds: tens of thousands of buckets, as a long run has (HdrHistogram's own compressed
        // format failed to read such a histogram back).
        var recorder = new LatencyRecorder();
        var random = new Random(1);
        for (int i = 0; i < 500_000; i++)
        {
            recorder.Record(Us(Math.Exp(random.NextDouble() * 15)));
        }
        var back = LatencyRecorder.Import(System.Text.Json.JsonSerializer.Deserialize<LatencyRecorder.Exported>(
            System.Text.Json.JsonSerializer.Serialize(recorder.Export()))!);
        Assert.Equal(recorder.Summarize(), back.Summarize());
        Assert.Equal(recorder.Curve(), back.Curve());
        Assert.Equal(recorder.Sample(), back.Sample());
    }

    [Fact]
    public void A_reset_recorder_forgets_what_it_recorded()
    {
        var recorder = new LatencyRecorder();
        recorder.Record(Us(5000));
        recorder.Reset();
        recorder.Record(Us(2));
        var s = recorder.Summarize();
        Assert.Equal(1, s.Count);
        Assert.Equal(2, s.MaxUs, 3);
        Assert.Equal([2.0], recorder.Sample().Select(v => Math.Round(v, 3)));
    }

    [Fact]
    public void A_round_trip_past_the_histograms_range_still_counts_and_is_the_exact_max()
    {
        var recorder = new LatencyRecorder();
        recorder.Record(Us(10));
        recorder.Record(Stopwatch.Frequency * 7200); // two hours
        var s = recorder.Summarize();
        Assert.Equal(2, s.Count);
        Assert.Equal(7200e6, s.MaxUs, 0);
    }

    [Fact]
    public void An_empty_recorder_summarizes_to_zero_requests()
    {
        Assert.Equal(0, new LatencyRecorder().Summarize().Count);
    }

    [Fact]
    public void Echo_check_reports_length_and_first_difference()
    {
        Assert.Null(Payload.CheckEcho([1, 2, 3], [1, 2, 3], content: true));
        Assert.Contains("2 B, expected 3 B", Payload.CheckEcho([1, 2, 3], [1, 2], content: true));
        Assert.Contains("at byte 1", Payload.CheckEcho([1, 2, 3], [1, 9, 3], content: true));
        Assert.Null(Payload.CheckEcho([1, 2, 3], [1, 9, 3], content: false));
    }

    [Fact]
    public void Stamped_requests_differ_from_one_request_to_the_next()
    {
        byte[] a = new byte[16], b = new byte[16];
        Payload.Stamp(a, 1);
        Payload.Stamp(b, 2);
        Assert.NotEqual(a, b);
        byte[] one = new byte[1];
        Payload.Stamp(one, 5);
        Assert.Equal(5, one[0]);
    }
}
