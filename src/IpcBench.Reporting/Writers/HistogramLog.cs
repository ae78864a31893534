using System.Globalization;

namespace IpcBench.Reporting.Writers;

/// <summary>
/// latency.hlog: every case's latency histogram in HdrHistogram's own log format (version 1.3), a line a case tagged
/// with the case, values in nanoseconds, so that HdrHistogram's tools read a run's full percentile spectrum and overlay
/// two runs': <c>java -cp hdrhistogram.jar org.HdrHistogram.HistogramLogProcessor -i latency.hlog -tag "tcp/1B/io=sync"</c>
/// prints its percentile distribution (.hgrm, which the plotters take). Each line is the case's <see cref="CaseResult.LatencyHistogram"/>.
/// </summary>
public static class HistogramLog
{
    public const string FileName = "latency.hlog";

    public static bool Applies(RunResults run) => run.Cases.Any(c => c.LatencyHistogram is not null);

    public static string Render(RunResults run)
    {
        double start = run.StartedAt.ToUnixTimeMilliseconds() / 1000.0;
        var log = new System.Text.StringBuilder();
        log.Append("#[Histogram log format version 1.3]\n");
        log.Append(CultureInfo.InvariantCulture, $"#[StartTime: {start:F3} (seconds since epoch), {run.StartedAt.UtcDateTime:yyyy-MM-dd HH:mm:ss} UTC]\n");
        log.Append(CultureInfo.InvariantCulture, $"#[BaseTime: {start:F3} (seconds since epoch)]\n");
        log.Append("\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n");
        foreach (var c in run.Cases.Where(c => c.LatencyHistogram is not null))
        {
            // The interval: the case's requests at its rate; its max in milliseconds, as HdrHistogram writes nanoseconds' max.
            double seconds = c.RequestsPerSecond > 0 ? c.Count / c.RequestsPerSecond : 0;
            log.Append(CultureInfo.InvariantCulture, $"Tag={Tag(c)},0.000,{seconds:F3},{c.LatencyUs.Max / 1000:F3},{c.LatencyHistogram}\n");
        }
        return log.ToString();
    }

    /// <summary>"tcp/1B/io=sync": the case, without the commas and spaces a log line cannot hold.</summary>
    public static string Tag(CaseResult c) =>
        new string([.. $"{c.Transport}/{c.Size}B{(c.Options.Length > 0 ? "/" + c.Options : "")}".Select(ch => ch is ',' || char.IsWhiteSpace(ch) ? '_' : ch)]);
}
