using System.Globalization;
using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;
using IpcBench.Harness.Hosting;
using IpcBench.Reporting;
using IpcBench.Reporting.Comparison;

namespace IpcBench.Benchmarks;

/// <summary>The suite's own summary columns: per-request percentiles, throughput, placement.</summary>
public sealed class SuiteColumn(string name, string legend, bool numeric, Func<Summary, BenchmarkCase, string> value) : IColumn
{
    public static IColumn[] All { get; } =
    [
        new SuiteColumn("Placement/Options", "CPU placement of client and server (IPCBENCH_PLACEMENT) and the case's options (io=sync ...; '-': none)", false,
            (_, c) => Sidecar(c) is { } e ? $"{e.Placement}/{(e.Options.Length > 0 ? e.Options : "-")}" : "-"),
        new SuiteColumn("Req/s", "round trips per second, over every client (1 / Mean)", true,
            (summary, c) => summary[c]?.ResultStatistics?.Mean is double ns and > 0 ? Format(1e9 / ns, "N0") : "-"),
        new SuiteColumn("MB/s", "payload megabytes (10^6 B) per second, requests and replies together", true,
            (summary, c) => summary[c]?.ResultStatistics?.Mean is double ns and > 0 && MessageSizes.Of(c.Parameters["Size"]) is { } size
                ? Format(Figures.Megabytes(1e9 / ns, size.Request, size.Reply), "0.###") : "-"),
        new SuiteColumn("Client spread", "with several clients: the slowest client's requests/s and the fastest's", false,
            (_, c) => Sidecar(c)?.ClientRequestsPerSecond is { Count: > 1 } rates ? $"{Format(rates.Min(), "N0")}-{Format(rates.Max(), "N0")}" : "-"),
        Latency("P50 us", l => l.P50, "50th"),
        new SuiteColumn("P50 launches", "with --launchCount N: the p50 column is the median launch's; here its 95% interval [from six launches] and the least-most of the launches' p50s", false,
            (_, c) => Sidecar(c)?.Launches is { Count: > 1 } launches ? $"{LaunchMedian.Spread(launches)} x{launches.Count}" : "-"),
        Latency("P90 us", l => l.P90, "90th"),
        Latency("P99 us", l => l.P99, "99th"),
        Latency("P99.9 us", l => l.P999, "99.9th"),
        Latency("Max us", l => l.Max, "100th"),
        new SuiteColumn("Client CPU us", "client process CPU time per request, user + system, every thread", true,
            (_, c) => Sidecar(c) is { } e ? Format(e.ClientCpuUsPerOp, "0.0") : "-"),
        new SuiteColumn("Server CPU us", "server process CPU time per request, as the server reported it", true,
            (_, c) => Sidecar(c)?.ServerCpuUsPerOp is double us ? Format(us, "0.0") : "-"),
        new SuiteColumn("Requests (lost)", "requests the percentiles are over (every one of the case after its warm-up), and replies lost", false,
            (_, c) => Sidecar(c) is { } e ? Format(e.Count, "0") + $" ({e.Errors})" : "-"),
    ];

    private static SuiteColumn Latency(string name, Func<LatencyFigures, double> select, string percentile) =>
        new(name, $"per-request round trip, {percentile} percentile, in microseconds (from every request's own timing)", true,
            (_, c) => Sidecar(c) is { } e ? Format(select(e.LatencyUs), "0.0") : "-");

    private static CaseResult? Sidecar(BenchmarkCase c) => LatencySidecar.Read(c);

    private static string Format(double value, string format) => value.ToString(format, CultureInfo.InvariantCulture);

    public string Id => $"{nameof(SuiteColumn)}.{name}";
    public string ColumnName => name;
    public bool AlwaysShow => true;
    public ColumnCategory Category => ColumnCategory.Custom;
    public int PriorityInCategory => Array.IndexOf(All, this);
    public bool IsNumeric => numeric;
    public UnitType UnitType => UnitType.Dimensionless;
    public string Legend => legend;
    public bool IsDefault(Summary summary, BenchmarkCase benchmarkCase) => false;
    public bool IsAvailable(Summary summary) => true;
    public string GetValue(Summary summary, BenchmarkCase benchmarkCase) => value(summary, benchmarkCase);
    public string GetValue(Summary summary, BenchmarkCase benchmarkCase, SummaryStyle style) => value(summary, benchmarkCase);
    public override string ToString() => name;
}
