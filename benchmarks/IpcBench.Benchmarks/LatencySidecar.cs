using System.Globalization;
using System.Text.Json;
using IpcBench.Core.Measurement;

namespace IpcBench.Benchmarks;

/// <summary>
/// Carries per-request percentiles from a benchmark's child process back to the host, where the
/// summary columns are computed: BenchmarkDotNet 0.14 has no channel for that, so each case leaves a
/// small JSON file in <c>IPCBENCH_LATENCY_DIR</c>, named after its parameters.
/// </summary>
public static class LatencySidecar
{
    public sealed record Entry(LatencySummary Latency, long LostReplies);

    public static void Write(string transport, int size, LatencySummary latency, long lostReplies)
    {
        if (SuiteSettings.LatencyDirectory is not { } dir)
        {
            return; // run without the suite's host (e.g. from a test runner): nothing to report to
        }
        Directory.CreateDirectory(dir);
        File.WriteAllText(PathFor(dir, transport, size), JsonSerializer.Serialize(new Entry(latency, lostReplies)));
    }

    public static Entry? Read(string transport, int size)
    {
        if (SuiteSettings.LatencyDirectory is not { } dir || !File.Exists(PathFor(dir, transport, size)))
        {
            return null;
        }
        return JsonSerializer.Deserialize<Entry>(File.ReadAllText(PathFor(dir, transport, size)));
    }

    private static string PathFor(string dir, string transport, int size) =>
        Path.Combine(dir, string.Create(CultureInfo.InvariantCulture, $"{transport}-{size}.json"));
}
