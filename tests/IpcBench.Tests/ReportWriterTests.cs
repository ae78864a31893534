using System.Xml.Linq;
using IpcBench.Reporting;
using IpcBench.Reporting.Charts;
using IpcBench.Reporting.Writers;

namespace IpcBench.Tests;

public class ReportWriterTests
{
    [Fact]
    public void Summary_markdown_matches_its_snapshot() => Snapshot.Match("summary.md", SummaryMarkdown.Render(RunFixtures.Bench()));

    [Fact]
    public void Summary_csv_matches_its_snapshot() => Snapshot.Match("summary.csv", SummaryCsv.Render(RunFixtures.Bench()));

    [Fact]
    public void Environment_markdown_matches_its_snapshot() => Snapshot.Match("env.md", EnvironmentMarkdown.Render(RunFixtures.Bench()));

    [Fact]
    public void Results_json_reads_back_as_written()
    {
        var run = RunFixtures.Bench();
        string json = ResultsFile.Serialize(run);
        var back = ResultsFile.Parse(json);
        Assert.Equal(json, ResultsFile.Serialize(back));
        Assert.Contains("\"schema\": \"ipcbench-results/1\"", json);
        Assert.Contains("\"server_cpu_us_per_op\": null", json);
        Assert.Contains("\"p999\": ", json);
        Assert.Equal(run.Cases[3].PercentilesUs, back.Cases[3].PercentilesUs);
        Assert.Equal(run.Cases[0].SamplesUs, back.Cases[0].SamplesUs);
    }

    [Theory]
    [InlineData("{", "malformed")]
    [InlineData("[]", "no \"schema\"")]
    [InlineData("{\"schema\": \"ipcbench-results/2\"}", "schema \"ipcbench-results/2\" is not \"ipcbench-results/1\"")]
    [InlineData("{\"schema\": \"ipcbench-results/1\", \"id\": \"x\"}", "malformed")]
    public void Malformed_results_are_rejected_with_the_reason(string json, string reason)
    {
        var e = Assert.Throws<ResultsFormatException>(() => ResultsFile.Parse(json, "x/results.json"));
        Assert.Contains(reason, e.Message);
        Assert.DoesNotContain('\n', e.Message);
    }

    [Fact]
    public void A_case_without_a_transport_is_rejected()
    {
        string json = ResultsFile.Serialize(RunFixtures.Bench()).Replace("\"transport\": \"tcp\"", "\"transport\": null");
        Assert.Throws<ResultsFormatException>(() => ResultsFile.Parse(json));
    }

    [Fact]
    public void Latency_by_size_chart_has_a_line_per_transport_and_latency_ticks()
    {
        var svg = XDocument.Parse(LatencyBySizeChart.Render(RunFixtures.Bench()));
        var texts = Texts(svg);
        foreach (string label in new[] { "tcp", "mmf wait=spin", "udp", "1 B", "1 KB", "100 KB", "p50 (median)", "p99", "1 us", "10 us", "1 ms" })
        {
            Assert.Contains(label, texts);
        }
        // tcp spans three sizes: a solid p50 line and a dashed p99 line. udp has one size: markers only.
        var polylines = svg.Descendants(Ns + "polyline").ToList();
        Assert.Equal(4, polylines.Count);
        Assert.Equal(2, polylines.Count(p => p.Attribute("stroke-dasharray") is not null));
        // A marker per case and percentile (6 x 2), and one per legend entry (3 transports, p50, p99).
        Assert.Equal(6 * 2 + 5, svg.Descendants(Ns + "circle").Count());
    }

    [Fact]
    public void Percentile_chart_is_at_the_size_most_transports_share_and_labels_the_tail()
    {
        var run = RunFixtures.Bench();
        Assert.Equal(1, PercentileChart.ChartedSize(run)); // tcp, mmf and udp all ran at 1 B
        var svg = XDocument.Parse(PercentileChart.Render(run));
        var texts = Texts(svg);
        Assert.Contains("Latency percentiles at 1 B", texts);
        foreach (string label in new[] { "50%", "90%", "99%", "99.9%", "99.99%", "min", "max" })
        {
            Assert.Contains(label, texts);
        }
    }

    [Fact]
    public void Charts_of_a_run_without_cases_say_so()
    {
        var run = RunFixtures.Bench() with { Cases = [] };
        Assert.Contains("no case ran", LatencyBySizeChart.Render(run));
        Assert.Contains("no latency curve", PercentileChart.Render(run));
    }

    private static readonly XNamespace Ns = "http://www.w3.org/2000/svg";

    private static List<string> Texts(XDocument svg) => svg.Descendants(Ns + "text").Select(t => t.Value).ToList();
}
