using System.Collections.Concurrent;
using BenchmarkDotNet.Running;
using IpcBench.Harness.Measurement;
using IpcBench.Reporting;

namespace IpcBench.Benchmarks;

/// <summary>
/// Carries a case's measurement from a benchmark's child process back to the host, where the summary columns and
/// results.json are made: BenchmarkDotNet (0.15.8) has no channel for that, so each case leaves its
/// <see cref="CaseResult"/> (results.json's own shape) in <c>IPCBENCH_LATENCY_DIR</c>, named after its job and
/// parameters. The host reads each file once.
/// </summary>
public static class LatencySidecar
{
    private static readonly ConcurrentDictionary<string, CaseResult?> Cache = new();

    /// <summary>The scenario a case measures: "connect", "throughput" or "steady" (<see cref="RoundTripBenchmark"/>).</summary>
    public static string ScenarioOf(BenchmarkCase c) =>
        c.Descriptor.Type == typeof(ConnectBenchmark) ? ConnectBenchmark.Scenario
        : c.Descriptor.Type == typeof(ThroughputBenchmark) ? ThroughputBenchmark.Scenario
        : RoundTripBenchmark.Scenario;

    /// <summary>The clients a case ran (<see cref="ThroughputBenchmark.Clients"/>); one for the other benchmarks.</summary>
    public static int ClientsOf(BenchmarkCase c) => c.Parameters.Items.Any(p => p.Name == "Clients") && c.Parameters["Clients"] is int n ? n : 1;

    /// <summary>The case a benchmark case measures (<paramref name="entry"/> and <paramref name="sizes"/> are its parameters).</summary>
    public static CaseKey KeyOf(BenchmarkCase c, string entry, MessageSizes sizes) =>
        SuiteResults.KeyOf(entry, sizes.Request, ScenarioOf(c), ClientsOf(c), sizes.ReplySize);

    /// <summary>Called in the benchmark's process, which knows its job only from the arguments BenchmarkDotNet started it with.</summary>
    public static void Write(string scenario, string entry, MessageSizes size, LoopResult measured, int clients = 1)
    {
        if (SuiteSettings.LatencyDirectory is not { } dir)
        {
            return; // run without the suite's host (e.g. from a test runner): nothing to report to
        }
        Directory.CreateDirectory(dir);
        var key = SuiteResults.KeyOf(entry, size.Request, scenario, clients, size.ReplySize);
        var result = Figures.Case(key, SuiteSettings.Resolve(entry).Family, measured);
        File.WriteAllText(PathFor(dir, CurrentJob(), key), ResultsFile.SerializeCase(result));
    }

    /// <summary>The case a benchmark case left, or null if it left none; read once, then remembered.</summary>
    public static CaseResult? Read(BenchmarkCase c)
    {
        if (SuiteSettings.LatencyDirectory is not { } dir
            || c.Parameters["Transport"] is not string entry || MessageSizes.Of(c.Parameters["Size"]) is not { } size)
        {
            return null;
        }
        return Cache.GetOrAdd(PathFor(dir, c.Job.Id, KeyOf(c, entry, size)),
            path => File.Exists(path) ? ResultsFile.ParseCase(File.ReadAllText(path)) : null);
    }

    /// <summary>The job BenchmarkDotNet runs this process for (it passes <c>--job ID</c>); "default" outside BenchmarkDotNet.</summary>
    private static string CurrentJob()
    {
        var args = Environment.GetCommandLineArgs();
        int i = Array.IndexOf(args, "--job");
        return i >= 0 && i + 1 < args.Length ? args[i + 1] : "default";
    }

    /// <summary>One file per job and case, its key kept readable in the name.</summary>
    private static string PathFor(string dir, string job, CaseKey key) =>
        Path.Combine(dir, Safe($"{job}-{key.Transport}-{key.Size}-{key.Options}") + ".json");

    private static string Safe(string text) => string.Concat(text.Select(ch => char.IsAsciiLetterOrDigit(ch) || ch is '-' or '.' ? ch : '_'));
}
