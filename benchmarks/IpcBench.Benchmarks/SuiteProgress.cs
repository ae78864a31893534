using System.Diagnostics;
using BenchmarkDotNet.EventProcessors;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;

namespace IpcBench.Benchmarks;

/// <summary>
/// Which case of how many is running, and the time left, one line as each case starts: BenchmarkDotNet's own log is
/// some ninety lines a case, where its "Remained N" line is easy to miss. The time left is each kind of case's mean so
/// far (a cold start, a steady case and a throughput case take different times) times the cases of that kind still to
/// run. On a terminal the line stands out and the window title follows it; in CI (output redirected, or CI set) it is
/// a plain line.
/// </summary>
internal sealed class SuiteProgress : EventProcessor
{
    private readonly Stopwatch _elapsed = new();
    private readonly Dictionary<Type, (int Done, TimeSpan Took)> _byKind = [];
    private readonly Dictionary<Type, int> _left = [];
    private readonly bool _terminal = !Console.IsOutputRedirected && string.IsNullOrEmpty(Environment.GetEnvironmentVariable("CI"));
    private int _total;
    private int _started;
    private TimeSpan _caseStarted;

    public override void OnStartBuildStage(IReadOnlyList<BuildPartition> partitions)
    {
        foreach (var c in partitions.SelectMany(p => p.Benchmarks).Select(b => b.BenchmarkCase))
        {
            _left[c.Descriptor.Type] = _left.GetValueOrDefault(c.Descriptor.Type) + 1;
            _total++;
        }
    }

    public override void OnStartRunBenchmark(BenchmarkCase benchmarkCase)
    {
        _elapsed.Start();
        _started++;
        _caseStarted = _elapsed.Elapsed;
        string what = $"{benchmarkCase.Descriptor.Type.Name.Replace("Benchmark", "", StringComparison.Ordinal)} "
            + string.Join(", ", benchmarkCase.Parameters.Items.Select(p => $"{p.Name.ToLowerInvariant()} {p.ToDisplayText()}"));
        string line = $"IpcBench suite: case {_started} of {_total}, {what}; {Minutes(_elapsed.Elapsed)} so far{Left()}";
        Console.WriteLine(_terminal ? $"\u001b]0;{line}\u0007\u001b[1;36m{line}\u001b[0m" : line);
    }

    public override void OnEndRunBenchmark(BenchmarkCase benchmarkCase, BenchmarkReport report)
    {
        var kind = benchmarkCase.Descriptor.Type;
        var (done, took) = _byKind.GetValueOrDefault(kind);
        _byKind[kind] = (done + 1, took + (_elapsed.Elapsed - _caseStarted));
        _left[kind] = _left.GetValueOrDefault(kind) - 1;
    }

    /// <summary>", about 6 min left", once a case has finished to go by.</summary>
    private string Left()
    {
        if (_byKind.Count == 0)
        {
            return "";
        }
        var overall = TimeSpan.FromTicks(_byKind.Values.Sum(k => k.Took.Ticks) / _byKind.Values.Sum(k => k.Done));
        // The case that just started counts as still to run.
        long left = _left.Sum(kv => ((_byKind.TryGetValue(kv.Key, out var k) ? k.Took / k.Done : overall) * kv.Value).Ticks);
        return $", about {Minutes(TimeSpan.FromTicks(left))} left";
    }

    private static string Minutes(TimeSpan t) => t.TotalMinutes < 1 ? $"{t.TotalSeconds:0} s" : $"{t.TotalMinutes:0.0} min";
}
