using System.Diagnostics;
using IpcBench.Core.Measurement;

namespace IpcBench.Tests;

public class LatencyTests
{
    private static long Us(double us) => (long)(us * Stopwatch.Frequency / 1e6);

    [Fact]
    public void Percentiles_are_nearest_rank_over_requests()
    {
        var recorder = new LatencyRecorder(1000);
        for (int i = 1000; i >= 1; i--)
        {
            recorder.Record(Us(i)); // 1..1000 us, in reverse order
        }
        var s = recorder.Summarize();
        Assert.Equal(1000, s.Count);
        Assert.Equal(1, s.MinUs, 3);
        Assert.Equal(500, s.P50Us, 3);
        Assert.Equal(900, s.P90Us, 3);
        Assert.Equal(990, s.P99Us, 3);
        Assert.Equal(999, s.P999Us, 3);
        Assert.Equal(1000, s.MaxUs, 3);
        Assert.Equal(500.5, s.MeanUs, 3);
    }

    [Fact]
    public void A_full_recorder_grows_by_default_and_keeps_every_sample()
    {
        var recorder = new LatencyRecorder(2);
        recorder.Record(Us(1));
        recorder.Record(Us(2));
        recorder.Record(Us(100));
        Assert.Equal(3, recorder.Count);
        Assert.Equal(100, recorder.Summarize().MaxUs, 3);
    }

    [Fact]
    public void Combined_recorders_give_percentiles_over_every_sample_of_every_part()
    {
        var fast = new LatencyRecorder(10);
        var slow = new LatencyRecorder(1);
        foreach (int us in new[] { 1, 2, 3 }) fast.Record(Us(us));
        foreach (int us in new[] { 100, 200 }) slow.Record(Us(us));
        var s = LatencyRecorder.Combine([fast, slow]).Summarize();
        Assert.Equal(5, s.Count);
        Assert.Equal(3, s.P50Us, 3);
        Assert.Equal(200, s.MaxUs, 3);
    }

    [Fact]
    public void A_ring_recorder_keeps_the_latest_samples()
    {
        var recorder = new LatencyRecorder(3, keepLatest: true);
        foreach (int us in new[] { 500, 600, 1, 2, 3 })
        {
            recorder.Record(Us(us));
        }
        var s = recorder.Summarize();
        Assert.Equal(3, s.Count);
        Assert.Equal(3, s.MaxUs, 3);
    }

    [Fact]
    public void An_empty_recorder_summarizes_to_zero_requests()
    {
        Assert.Equal(0, new LatencyRecorder(10).Summarize().Count);
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
