using IpcBench.Reporting.Charts;
using IpcBench.Reporting.Collecting;

namespace IpcBench.Reporting.Writers;

/// <summary>Everything a run folder holds about a run, written from its <see cref="RunResults"/>.</summary>
public static class ReportWriter
{
    /// <summary>Writes results.json and every report made from it; then the folder is no longer marked incomplete.</summary>
    public static IReadOnlyList<string> WriteAll(string folder, RunResults run)
    {
        Directory.CreateDirectory(folder);
        ResultsFile.Write(folder, run);
        var written = WriteReports(folder, run).Prepend(Path.Combine(folder, ResultsFile.FileName)).ToList();
        RunFolder.MarkComplete(folder);
        return written;
    }

    /// <summary>Writes summary.md, summary.csv, env.md, latency.hlog, report.html and the charts (not results.json, their source).</summary>
    public static IReadOnlyList<string> WriteReports(string folder, RunResults run)
    {
        var written = new List<string>();
        void Write(string name, string text)
        {
            string path = Path.Combine(folder, name);
            RegularFile.Replace(path, text); // the folder may be from elsewhere: a link at a report's name is replaced, not written through
            written.Add(path);
        }
        Write(SummaryMarkdown.FileName, SummaryMarkdown.Render(run));
        Write(SummaryCsv.FileName, SummaryCsv.Render(run));
        Write(EnvironmentMarkdown.FileName, EnvironmentMarkdown.Render(run));
        if (HistogramLog.Applies(run))
        {
            Write(HistogramLog.FileName, HistogramLog.Render(run));
        }
        var charts = Charts(run);
        Write(HtmlReport.FileName, HtmlReport.Render(run, charts));
        foreach (var (name, svg) in charts)
        {
            Write(name, svg);
        }
        return written;
    }

    /// <summary>Every chart that applies to the run, by file name.</summary>
    public static IReadOnlyList<(string FileName, string Svg)> Charts(RunResults run) =>
        [.. RankingChart.Render(run), .. ChartKinds.Where(c => c.Applies(run)).Select(c => (c.FileName, c.Render(run)))];

    private static readonly (string FileName, Func<RunResults, bool> Applies, Func<RunResults, string> Render)[] ChartKinds =
    [
        (LatencyBySizeChart.FileName, _ => true, LatencyBySizeChart.Render),
        (PercentileChart.FileName, _ => true, PercentileChart.Render),
        (CostChart.FileName, CostChart.Applies, CostChart.Render),
        (AnatomyChart.FileName, AnatomyChart.Applies, AnatomyChart.Render),
        (ColdStartChart.FileName, ColdStartChart.Applies, ColdStartChart.Render),
        (IsolationChart.FileName, IsolationChart.Applies, IsolationChart.Render),
        (LoadCharts.ThroughputFileName, LoadCharts.HasClientSeries, LoadCharts.RenderThroughput),
        (LoadCharts.LatencyFileName, LoadCharts.HasOpenLoop, LoadCharts.RenderLatency),
    ];
}
