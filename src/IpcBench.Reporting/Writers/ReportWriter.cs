using IpcBench.Reporting.Charts;

namespace IpcBench.Reporting.Writers;

/// <summary>Everything a run folder holds about a run, written from its <see cref="RunResults"/>.</summary>
public static class ReportWriter
{
    /// <summary>Writes results.json and every report made from it.</summary>
    public static IReadOnlyList<string> WriteAll(string folder, RunResults run)
    {
        Directory.CreateDirectory(folder);
        ResultsFile.Write(folder, run);
        return WriteReports(folder, run).Prepend(Path.Combine(folder, ResultsFile.FileName)).ToList();
    }

    /// <summary>Writes summary.md, summary.csv, env.md and the charts (not results.json, their source).</summary>
    public static IReadOnlyList<string> WriteReports(string folder, RunResults run)
    {
        var written = new List<string>();
        void Write(string name, string text)
        {
            string path = Path.Combine(folder, name);
            File.WriteAllText(path, text);
            written.Add(path);
        }
        Write(SummaryMarkdown.FileName, SummaryMarkdown.Render(run));
        Write(SummaryCsv.FileName, SummaryCsv.Render(run));
        Write(EnvironmentMarkdown.FileName, EnvironmentMarkdown.Render(run));
        var charted = SteadyStateOnly(run);
        Write(LatencyBySizeChart.FileName, LatencyBySizeChart.Render(charted));
        Write(PercentileChart.FileName, PercentileChart.Render(charted));
        if (LoadCharts.HasClientSeries(run))
        {
            Write(LoadCharts.ThroughputFileName, LoadCharts.RenderThroughput(run));
        }
        if (LoadCharts.HasOpenLoop(run))
        {
            Write(LoadCharts.LatencyFileName, LoadCharts.RenderLatency(run));
        }
        return written;
    }

    /// <summary>
    /// The charts show the steady state: cold-start cases (scenario=connect), orders of magnitude
    /// apart and one size only, would double the lines and crowd out what the charts are for.
    /// A run of cold starts only is charted as it is.
    /// </summary>
    private static RunResults SteadyStateOnly(RunResults run)
    {
        var steady = run.Cases.Where(c => !CaseOptions.IsConnect(c.Options)).ToList();
        return steady.Count > 0 ? run with { Cases = steady } : run;
    }
}
