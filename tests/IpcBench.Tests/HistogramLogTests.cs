using System.Diagnostics;
using IpcBench.Harness.Measurement;
using IpcBench.Reporting;
using IpcBench.Reporting.Collecting;
using IpcBench.Reporting.Writers;

namespace IpcBench.Tests;

/// <summary>latency.hlog: every case's histogram in HdrHistogram's log format, read back by HdrHistogram's own tools.</summary>
public class HistogramLogTests
{
    private const string Jar = "/usr/share/java/hdrhistogram.jar";

    /// <summary>Round trips of 10 us to about 5 ms, many buckets: a histogram HdrHistogram.NET 2.5.0's own reader cannot take back.</summary>
    private static LatencyRecorder Recorded(int seed, int count)
    {
        var random = new Random(seed);
        var recorder = new LatencyRecorder();
        for (int i = 0; i < count; i++)
        {
            recorder.Record((long)(10_000 * Math.Exp(random.NextDouble() * 6.2) * Stopwatch.Frequency / 1_000_000_000));
        }
        return recorder;
    }

    [Fact]
    public void HdrHistogram_reads_each_case_back_with_its_count_and_percentiles()
    {
        Assert.SkipUnless(File.Exists(Jar) && Which("java"), $"HdrHistogram's Java tools are not installed (apt-get install default-jre-headless libhdrhistogram-java)");
        var recorder = Recorded(1, 50_000);
        var summary = recorder.Summarize();
        var run = RunFixtures.Bench();
        run = run with { Cases = [run.Cases[0] with { LatencyHistogram = recorder.EncodedNanoseconds() }, .. run.Cases.Skip(1)] };
        string dir = Directory.CreateTempSubdirectory("ipcbench-test-hlog-").FullName;
        try
        {
            string log = Path.Combine(dir, HistogramLog.FileName);
            File.WriteAllText(log, HistogramLog.Render(ResultsFile.Parse(ResultsFile.Serialize(run)))); // through results.json, as a report is made
            string output = Path.Combine(dir, "out");
            var java = Process.Start(new ProcessStartInfo("java", ["-cp", Jar, "org.HdrHistogram.HistogramLogProcessor",
                "-i", log, "-o", output, "-tag", HistogramLog.Tag(run.Cases[0]), "-outputValueUnitRatio", "1000"])
            { RedirectStandardError = true, RedirectStandardOutput = true })!;
            string errors = java.StandardError.ReadToEnd();
            java.StandardOutput.ReadToEnd();
            Assert.True(java.WaitForExit(60_000), "HistogramLogProcessor did not end within a minute");
            Assert.True(java.ExitCode == 0, errors);
            // The .hgrm: "Value Percentile TotalCount 1/(1-Percentile)" rows, then "#[Max = ..., Total count = N]".
            string hgrm = File.ReadAllText(output + ".hgrm");
            Assert.Equal(recorder.Count.ToString(System.Globalization.CultureInfo.InvariantCulture),
                System.Text.RegularExpressions.Regex.Match(hgrm, @"Total count\s*=\s*(\d+)").Groups[1].Value);
            var rows = hgrm.Split('\n').Select(l => l.Split(' ', StringSplitOptions.RemoveEmptyEntries))
                .Where(f => f.Length >= 3 && double.TryParse(f[0], System.Globalization.CultureInfo.InvariantCulture, out _)).ToList();
            double p50 = rows.Select(f => (Us: double.Parse(f[0], System.Globalization.CultureInfo.InvariantCulture), P: double.Parse(f[1], System.Globalization.CultureInfo.InvariantCulture)))
                .First(r => r.P >= 0.5).Us;
            Assert.Equal(summary.P50Us, p50, summary.P50Us * 0.002); // three significant digits, both
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }

    /// <summary>
    /// The report's percentile chart reads the histogram latency.hlog holds: decoded (HdrHistogram.NET's own decoder fails
    /// on this one), it gives every percentile the recorder gave, and the chart's line goes through them.
    /// </summary>
    [Fact]
    public void The_percentile_chart_reads_the_same_histogram_as_the_log()
    {
        var recorder = Recorded(1, 50_000);
        var decoded = DecodedHistogram.TryDecode(recorder.EncodedNanoseconds());

        Assert.NotNull(decoded);
        Assert.Equal(recorder.Count, decoded.TotalCount);
        var curve = recorder.Curve();
        foreach (var point in curve.Where(p => p.P is > 0 and < 100))
        {
            Assert.Equal(point.Us, Math.Clamp(decoded.ValueAt(point.P) / 1000.0, curve[0].Us, curve[^1].Us), point.Us * 1e-9);
        }
        var c = RunFixtures.Bench().Cases[0] with { PercentilesUs = curve, LatencyHistogram = recorder.EncodedNanoseconds() };
        var line = Reporting.Charts.PercentileChart.Curve(c);
        Assert.True(line.Count > curve.Length * 4, $"{line.Count} points: the histogram's, not the {curve.Length} recorded");
        Assert.Equal((curve[0], curve[^1]), (line[0], line[^1])); // the exact minimum and maximum
        Assert.All(line.Zip(line.Skip(1)), pair => Assert.True(pair.First.P < pair.Second.P && pair.First.Us <= pair.Second.Us));
    }

    [Theory]
    [InlineData(null)]
    [InlineData("")]
    [InlineData("AAAA")]
    [InlineData("HISTFAAAA+g=")] // the compressed cookie, then a length past the end
    [InlineData(HostileCounts)]
    public void A_histogram_that_does_not_decode_leaves_the_chart_its_recorded_points(string? encoded)
    {
        Assert.Null(DecodedHistogram.TryDecode(encoded));
        var c = RunFixtures.Bench().Cases[0] with { LatencyHistogram = encoded };
        Assert.Equal(c.PercentilesUs.OrderBy(p => p.P), Reporting.Charts.PercentileChart.Curve(c));
    }

    /// <summary>A well-formed V2 encoding whose three counts add up past what a long holds.</summary>
    private const string HostileCounts = "HISTFAAAACR4nJNpmSzMwMAgzQABzFCaEch0M9ixgMH+A0SgATcAAIWFEeY=";

    [Fact]
    public void Recorders_merged_across_client_processes_encode_every_request()
    {
        var parts = new[] { Recorded(2, 20_000), Recorded(3, 30_000) };
        var merged = LatencyRecorder.Combine([.. parts.Select(p => LatencyRecorder.Import(p.Export()))]); // as a client process hands its recorder over
        var direct = LatencyRecorder.Combine(parts);
        Assert.Equal(50_000, merged.Count);
        Assert.Equal(direct.EncodedNanoseconds(), merged.EncodedNanoseconds());
        Assert.Null(new LatencyRecorder().EncodedNanoseconds());
    }

    [Fact]
    public void A_histogram_that_is_not_base64_is_refused_before_it_reaches_the_log()
    {
        var run = RunFixtures.Bench();
        string json = ResultsFile.Serialize(run with { Cases = [run.Cases[0] with { LatencyHistogram = "HISTFAAAA\nTag=x,0,0,0,AAAA" }, .. run.Cases.Skip(1)] });
        var e = Assert.Throws<ResultsFormatException>(() => ResultsFile.Parse(json, "x/results.json"));
        Assert.Contains("latency_histogram", e.Message);
        Assert.DoesNotContain(HistogramLog.FileName, ReportFiles(RunFixtures.Bench())); // a run without histograms writes no log
    }

    private static IEnumerable<string> ReportFiles(RunResults run)
    {
        string dir = Directory.CreateTempSubdirectory("ipcbench-test-hlog-").FullName;
        try
        {
            return [.. ReportWriter.WriteReports(dir, run).Select(Path.GetFileName).OfType<string>()];
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }

    private static bool Which(string tool) =>
        (Environment.GetEnvironmentVariable("PATH") ?? "").Split(':').Any(d => File.Exists(Path.Combine(d, tool)));
}
