using System.Collections.Concurrent;
using BenchmarkDotNet.Running;
using IpcBench.Harness.Measurement;
using IpcBench.Reporting;
using IpcBench.Reporting.Comparison;

namespace IpcBench.Benchmarks;

/// <summary>
/// Carries a case's measurement from a benchmark's child process back to the host, where the summary columns and
/// results.json are made: BenchmarkDotNet (0.15.8) has no channel for that, so each launch of a case leaves its
/// <see cref="CaseResult"/> (results.json's own shape) in <c>IPCBENCH_LATENCY_DIR</c>, named after its job, its
/// parameters and the launch's process. The host reads a case's launches once and pools them as a plan pools its
/// rounds (<see cref="RunPool.Pooled"/>): with --launchCount N each figure is the median launch's, and each launch's
/// p50 is kept for the interval.
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
        // A file of the launch's own, created afresh: another launch of the case never overwrites it.
        using var file = new FileStream($"{Stem(dir, CurrentJob(), key)}{LaunchSeparator}{Environment.ProcessId}-{Guid.NewGuid():N}.json", FileMode.CreateNew);
        using var writer = new StreamWriter(file);
        writer.Write(ResultsFile.SerializeCase(result));
    }

    /// <summary>The case a benchmark case left, or null if it left none; read once, then remembered.</summary>
    public static CaseResult? Read(BenchmarkCase c)
    {
        if (SuiteSettings.LatencyDirectory is not { } dir
            || c.Parameters["Transport"] is not string entry || MessageSizes.Of(c.Parameters["Size"]) is not { } size)
        {
            return null;
        }
        return Cache.GetOrAdd(Stem(dir, c.Job.Id, KeyOf(c, entry, size)), Launches);
    }

    /// <summary>Every launch a case left, pooled; one launch as it is (its report as before launches were pooled).</summary>
    private static CaseResult? Launches(string stem)
    {
        string dir = Path.GetDirectoryName(stem)!;
        var launches = !Directory.Exists(dir) ? [] : Directory.EnumerateFiles(dir, $"{Path.GetFileName(stem)}{LaunchSeparator}*.json")
            .Order(StringComparer.Ordinal).Select(path => ResultsFile.ParseCase(File.ReadAllText(path))).ToList();
        return launches.Count switch
        {
            0 => null,
            1 => launches[0],
            _ => RunPool.Pooled(launches),
        };
    }

    /// <summary>The job BenchmarkDotNet runs this process for (it passes <c>--job ID</c>); "default" outside BenchmarkDotNet.</summary>
    private static string CurrentJob()
    {
        var args = Environment.GetCommandLineArgs();
        int i = Array.IndexOf(args, "--job");
        return i >= 0 && i + 1 < args.Length ? args[i + 1] : "default";
    }

    /// <summary>Between a case's name and its launch: a character <see cref="Safe"/> never leaves in the name.</summary>
    private const char LaunchSeparator = '@';

    /// <summary>A case's files' common name, its job and key kept readable.</summary>
    private static string Stem(string dir, string job, CaseKey key) => Path.Combine(dir, Safe($"{job}-{key.Transport}-{key.Size}-{key.Options}"));

    private static string Safe(string text) => string.Concat(text.Select(ch => char.IsAsciiLetterOrDigit(ch) || ch is '-' or '.' ? ch : '_'));
}
