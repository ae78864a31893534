using System.Globalization;
using System.Text.Json;
using BenchmarkDotNet.Running;
using IpcBench.Core.Measurement;

namespace IpcBench.Benchmarks;

/// <summary>
/// Carries per-request percentiles from a benchmark's child process back to the host, where the
/// summary columns are computed: BenchmarkDotNet (0.15.8) has no channel for that, so each case leaves a
/// small JSON file in <c>IPCBENCH_LATENCY_DIR</c>, named after its parameters.
/// </summary>
public static class LatencySidecar
{
    /// <param name="Latency">Per-request percentiles.</param>
    /// <param name="LostReplies">Requests that got no reply (datagram transports).</param>
    /// <param name="ClientCpuUsPerOp">The benchmark process's CPU time per request.</param>
    /// <param name="ServerCpuUsPerOp">The server's, as it reported it (null if it did not).</param>
    /// <param name="Curve">The latency curve (<see cref="LatencyRecorder.Curve"/>); null in files from before it was kept.</param>
    /// <param name="SamplesUs">A fixed-seed random subsample of the latencies (<see cref="LatencyRecorder.Sample"/>), for run-to-run tests.</param>
    public sealed record Entry(LatencySummary Latency, long LostReplies, double ClientCpuUsPerOp, double? ServerCpuUsPerOp,
        IReadOnlyList<PercentilePoint>? Curve = null, IReadOnlyList<double>? SamplesUs = null);

    /// <summary>The scenario a case measures: "connect" (<see cref="ConnectBenchmark"/>) or "steady" (<see cref="RoundTripBenchmark"/>).</summary>
    public static string ScenarioOf(BenchmarkCase c) => c.Descriptor.Type == typeof(ConnectBenchmark) ? ConnectBenchmark.Scenario : RoundTripBenchmark.Scenario;

    public static void Write(string scenario, string transport, int size, Entry entry)
    {
        if (SuiteSettings.LatencyDirectory is not { } dir)
        {
            return; // run without the suite's host (e.g. from a test runner): nothing to report to
        }
        Directory.CreateDirectory(dir);
        File.WriteAllText(PathFor(dir, scenario, transport, size), JsonSerializer.Serialize(entry));
    }

    /// <summary>The entry a benchmark case left, or null if it left none.</summary>
    public static Entry? Read(BenchmarkCase c)
    {
        if (SuiteSettings.LatencyDirectory is not { } dir
            || c.Parameters["Transport"] is not string transport || c.Parameters["Size"] is not int size
            || PathFor(dir, ScenarioOf(c), transport, size) is not { } path || !File.Exists(path))
        {
            return null;
        }
        return JsonSerializer.Deserialize<Entry>(File.ReadAllText(path));
    }

    /// <summary>One file per case; the transport may carry options ("mmf?wait=spin"), kept readable in the name.</summary>
    private static string PathFor(string dir, string scenario, string transport, int size) =>
        Path.Combine(dir, string.Create(CultureInfo.InvariantCulture,
            $"{scenario}-{transport.Replace('?', '_').Replace('&', '_').Replace('=', '-')}-{size}.json"));
}
