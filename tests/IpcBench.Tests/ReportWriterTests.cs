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
    public void Latency_by_size_chart_has_a_panel_per_family_and_a_line_per_transport()
    {
        var svg = XDocument.Parse(LatencyBySizeChart.Render(RunFixtures.Bench()));
        var texts = Texts(svg);
        foreach (string label in new[] { "Sockets", "Local IPC", "RPC frameworks", "tcp io=sync", "mmf io=sync wait=spin", "udp io=sync", "grpc",
            "1 B", "1 KB", "100 KB", "1 us", "10 us", "1 ms" })
        {
            Assert.Contains(label, texts);
        }
        // Steady cases only: no cold start, no case under load.
        Assert.DoesNotContain(texts, t => t.Contains("scenario", StringComparison.Ordinal) || t.Contains("clients", StringComparison.Ordinal));
        // tcp (three sizes), mmf and grpc (two each): a solid p50 line and a dashed p99 line each. udp has one size: markers only.
        var polylines = svg.Descendants(Ns + "polyline").ToList();
        Assert.Equal(6, polylines.Count);
        Assert.Equal(3, polylines.Count(p => p.Attribute("stroke-dasharray") is not null));
        // A marker per case and percentile (8 x 2), and one per legend entry (4 transports).
        Assert.Equal(8 * 2 + 4, Markers(svg).Count);
    }

    [Fact]
    public void No_two_series_share_colour_and_marker()
    {
        var styles = Enumerable.Range(0, 32).Select(SeriesStyle.For).ToList();
        Assert.Equal(32, styles.Distinct().Count());
        Assert.Equal(8, styles.Select(s => s.Colour).Distinct().Count());
        // Twelve RPC transports in one panel: twelve legend entries, no two alike in colour and shape.
        var rpc = Enumerable.Range(0, 12).Select(i => RunFixtures.Case($"rpc{i}", "", 1, p50: 50 + i, p99: 90 + i, rps: 1000, serverCpu: 1, allocated: 0)
            with { Family = "rpc" }).ToArray();
        var legend = Markers(XDocument.Parse(LatencyBySizeChart.Render(RunFixtures.With("rpc", rpc)))).Where(m => m.Element(Ns + "title") is null).ToList();
        Assert.Equal(12, legend.Count);
        Assert.Equal(12, legend.Select(m => (m.Attribute("fill")!.Value, Shape(m))).Distinct().Count());
    }

    /// <summary>A marker's shape, whatever its position: circle, or a polygon's steps from point to point.</summary>
    private static string Shape(XElement marker)
    {
        if (marker.Name.LocalName == "circle")
        {
            return "circle";
        }
        var points = marker.Attribute("points")!.Value.Split(' ').Select(p => p.Split(',').Select(v => double.Parse(v, System.Globalization.CultureInfo.InvariantCulture)).ToArray()).ToList();
        return string.Join(";", points.Skip(1).Select((p, i) => $"{Math.Round(p[0] - points[i][0])},{Math.Round(p[1] - points[i][1])}"));
    }

    [Fact]
    public void Percentile_chart_is_at_the_size_most_transports_share_and_labels_the_tail()
    {
        var run = RunFixtures.Bench();
        Assert.Equal(1, PercentileChart.ChartedSize(run)); // tcp, mmf, udp and grpc all ran at 1 B
        var svg = XDocument.Parse(PercentileChart.Render(run));
        var texts = Texts(svg);
        Assert.Contains("Latency percentiles at 1 B", texts);
        foreach (string label in new[] { "50", "90", "99", "99.9", "99.99", "max", "Sockets", "RPC frameworks" })
        {
            Assert.Contains(label, texts);
        }
    }

    [Fact]
    public void Cold_start_chart_has_a_bar_per_cold_start_fastest_first()
    {
        var run = RunFixtures.Bench();
        Assert.True(ColdStartChart.Applies(run));
        var svg = XDocument.Parse(ColdStartChart.Render(run));
        var bars = svg.Descendants(Ns + "rect").Where(r => r.Element(Ns + "title") is not null).Select(r => r.Element(Ns + "title")!.Value).ToList();
        Assert.Equal(2, bars.Count);
        Assert.StartsWith("tcp io=sync: p50 95.0 us", bars[0], StringComparison.Ordinal);
        Assert.StartsWith("grpc: p50 2,100 us", bars[1], StringComparison.Ordinal);
        Assert.False(ColdStartChart.Applies(RunFixtures.With("steady", RunFixtures.Bench().Cases[0])));
    }

    [Fact]
    public void Cost_chart_has_a_named_point_per_transport()
    {
        var svg = XDocument.Parse(CostChart.Render(RunFixtures.Bench()));
        var points = Markers(svg).Select(m => m.Element(Ns + "title")?.Value).OfType<string>().ToList();
        Assert.Equal(4, points.Count); // tcp, mmf, udp and grpc at 1 B
        Assert.Contains(points, p => p.StartsWith("grpc: p50 88.5 us, CPU 113.6 us per request (53.1 client, 60.5 server)", StringComparison.Ordinal));
        var texts = Texts(svg);
        foreach (string label in new[] { "tcp io=sync", "mmf io=sync wait=spin", "udp io=sync", "grpc", "Sockets", "Local IPC", "RPC frameworks" })
        {
            Assert.Contains(label, texts);
        }
    }

    [Fact]
    public void Labels_of_crowded_points_do_not_overlap()
    {
        var placer = new LabelPlacer(new Box(0, 0, 600, 400));
        var boxes = Enumerable.Range(0, 12).Select(i => placer.Place(300, 200, 80)).Select(p => (p.X, Top: p.Y - 10, Right: p.X + 80, Bottom: p.Y + 2)).ToList();
        for (int i = 0; i < boxes.Count; i++)
        {
            for (int j = i + 1; j < boxes.Count; j++)
            {
                bool overlap = boxes[i].X < boxes[j].Right && boxes[j].X < boxes[i].Right && boxes[i].Top < boxes[j].Bottom && boxes[j].Top < boxes[i].Bottom;
                Assert.False(overlap, $"labels {i} and {j} overlap");
            }
        }
    }

    [Fact]
    public void Isolation_chart_appears_when_a_run_holds_several_isolations()
    {
        var bench = RunFixtures.Bench();
        Assert.False(IsolationChart.Applies(bench));
        var tcp = bench.Cases[0];
        var run = RunFixtures.With("isolations", tcp, tcp.WithOptions("io=sync&isolation=netns") with { LatencyUs = tcp.LatencyUs with { P50 = 20 } },
            tcp.WithOptions("io=sync&isolation=docker-bridge") with { LatencyUs = tcp.LatencyUs with { P50 = 31 } });
        Assert.True(IsolationChart.Applies(run));
        var svg = XDocument.Parse(IsolationChart.Render(run));
        Assert.Equal(["bare", "netns", "docker-bridge", "tcp 1 B"], Texts(svg).Where(t => t is "bare" or "netns" or "docker-bridge" or "tcp 1 B"));
        var bars = svg.Descendants(Ns + "rect").Select(r => r.Element(Ns + "title")?.Value).OfType<string>().ToList();
        Assert.Equal(["tcp 1 B, bare: p50 14.8 us", "tcp 1 B, netns: p50 20.0 us", "tcp 1 B, docker-bridge: p50 31.0 us"], bars.Select(b => b[..b.IndexOf(" us", StringComparison.Ordinal)] + " us"));
    }

    [Fact]
    public void Throughput_chart_draws_only_throughput_cases_in_a_panel_per_family()
    {
        CaseResult Load(string transport, string family, string options, double rps) =>
            RunFixtures.Case(transport, options, 1, p50: 20, p99: 40, rps: rps, serverCpu: 5, allocated: 0) with { Family = family };
        var run = RunFixtures.With("load",
            Load("tcp", "sockets", "io=sync", 50000), // steady: not a point of the chart
            Load("tcp", "sockets", "io=sync&scenario=throughput", 60000),
            Load("tcp", "sockets", "clients=4&io=sync&scenario=throughput", 150000),
            Load("grpc", "rpc", "scenario=throughput", 9000),
            Load("grpc", "rpc", "clients=4&scenario=throughput", 20000));
        Assert.True(LoadCharts.HasClientSeries(run));
        var svg = XDocument.Parse(LoadCharts.RenderThroughput(run));
        var texts = Texts(svg);
        Assert.Equal(["Sockets", "RPC frameworks"], texts.Where(t => t is "Sockets" or "RPC frameworks"));
        Assert.Contains("tcp io=sync", texts); // labelled without the scenario every line shares
        Assert.DoesNotContain(texts, t => t.Contains("scenario", StringComparison.Ordinal));
        var points = svg.Descendants(Ns + "title").Select(t => t.Value).Where(t => t.Contains("requests/s", StringComparison.Ordinal)).ToList();
        Assert.Equal(4, points.Count); // the steady case is not one of them
        Assert.DoesNotContain(points, p => p.Contains(": 50,000 requests/s", StringComparison.Ordinal));
    }

    [Fact]
    public void Every_chart_that_applies_is_written()
    {
        string dir = Directory.CreateTempSubdirectory("ipcbench-charts-").FullName;
        try
        {
            var written = ReportWriter.WriteReports(dir, RunFixtures.Bench()).Select(Path.GetFileName).ToList();
            Assert.Equal(["summary.md", "summary.csv", "env.md", "report.html", "ranking-1B.svg", "ranking-1KB.svg", "ranking-100KB.svg", "latency-by-size.svg", "percentiles.svg", "cost.svg", "cold-starts.svg",
                "latency-by-load.svg"], written);
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }

    /// <summary>
    /// A real run with every kind of case (17 pings merged: tcp, uds and mmf at 1 B and 1 KB, cold starts, 4 and 16
    /// clients, an open loop at two rates, tcp in a netns; its samples left out; the steady cases' anatomy from a later
    /// run of the same cases), so that every chart is drawn from it and compared byte for byte: a refactoring of the
    /// chart code must not move a pixel.
    /// </summary>
    [Fact]
    public void Every_chart_of_a_run_with_every_kind_of_case_matches_its_snapshot()
    {
        var run = ResultsFile.Parse(Snapshot.Read("every-chart/results.json"));
        var charts = ReportWriter.Charts(run);
        Assert.Equal(10, charts.Count); // every chart applies (a ranking a size): the run still covers them all
        foreach (var (fileName, svg) in charts)
        {
            Snapshot.Match($"every-chart/{fileName}", svg);
        }
        Snapshot.Match("every-chart/summary.md", SummaryMarkdown.Render(run));
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

    private static List<XElement> Markers(XDocument svg) => [.. svg.Descendants().Where(e => e.Name == Ns + "circle" || e.Name == Ns + "polygon")];
}
