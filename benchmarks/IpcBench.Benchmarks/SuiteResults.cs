using BenchmarkDotNet.Reports;
using IpcBench.Harness.Hosting;
using IpcBench.Harness.Running;
using IpcBench.Reporting;
using IpcBench.Reporting.Collecting;

namespace IpcBench.Benchmarks;

/// <summary>
/// The suite's run as IpcBench results: one case per benchmark case, its latency figures, curve and
/// samples from the case's sidecar file, its requests/s and allocations from BenchmarkDotNet.
/// Written into the run's artifacts folder beside BenchmarkDotNet's own reports.
/// </summary>
public static class SuiteResults
{
    public const string Kind = "bench";

    /// <summary>The cases that will not run here, with the reason: transports that do not run on this OS, sizes a transport cannot carry, clients a server cannot serve at once.</summary>
    public static IReadOnlyList<SkippedCase> Skipped()
    {
        var skipped = new List<SkippedCase>();
        foreach (string entry in SuiteSettings.RequestedTransports)
        {
            if (SuiteSettings.NotHere(entry) is { } why)
            {
                skipped.Add(new SkippedCase(SuiteSettings.Resolve(entry).Name, KeyOf(entry, 0).Options, null, why));
                continue;
            }
            var cases = SuiteSettings.Sizes.Select(size => SuiteSettings.Spec(entry, size))
                .Concat(ThroughputBenchmark.ClientCounts.Select(clients => SuiteSettings.Spec(entry, new MessageSizes(1, 1), ThroughputBenchmark.Scenario, clients)));
            foreach (var spec in cases)
            {
                if (CaseRunner.Refuses(SuiteSettings.Resolve(entry), spec) is { } notThis)
                {
                    skipped.Add(new SkippedCase(spec.Key.Transport, spec.Key.Options, spec.Key.Size, notThis));
                }
            }
        }
        return skipped;
    }

    public static RunResults Build(string id, DateTimeOffset started, IReadOnlyList<string> args, IEnumerable<Summary> summaries)
    {
        var cases = new List<CaseResult>();
        var skipped = Skipped().ToList();
        foreach (var report in summaries.SelectMany(s => s.Reports))
        {
            var c = report.BenchmarkCase;
            if (c.Parameters["Transport"] is not string entry || MessageSizes.Of(c.Parameters["Size"]) is not { } sizes)
            {
                continue;
            }
            var key = LatencySidecar.KeyOf(c, entry, sizes);
            var sidecar = LatencySidecar.Read(c);
            if (!report.Success || report.ResultStatistics is not { Mean: > 0 } stats || sidecar is null)
            {
                skipped.Add(new SkippedCase(key.Transport, key.Options, key.Size, "the benchmark failed or left no measurements: see the run's .log"));
                continue;
            }
            double rate = 1e9 / stats.Mean; // one round trip (or connect cycle) per operation, Mean in ns
            cases.Add(sidecar with
            {
                RequestsPerSecond = Figures.PerSecond(rate),
                MegabytesPerSecond = Figures.Megabytes(rate, sizes.Request, sizes.Reply),
                AllocatedBytesPerOp = Figures.Bytes(report.GcStats.GetBytesAllocatedPerOperation(c)),
            });
        }
        return new RunResults
        {
            Schema = RunResults.CurrentSchema,
            Id = id,
            Kind = Kind,
            StartedAt = started,
            GitCommit = GitCommit.Current(),
            CommandLine = CommandLineText.Join("IpcBench.Benchmarks", args),
            Environment = EnvironmentProbe.Describe(SuiteSettings.Placement.Describe(), Options(args)),
            Cases = cases,
            Skipped = skipped,
        };
    }

    /// <summary>Every setting that shaped the run: the suite's variables and BenchmarkDotNet's command line.</summary>
    private static Dictionary<string, string> Options(IReadOnlyList<string> args)
    {
        var options = new Dictionary<string, string>
        {
            [SuiteSettings.TransportsVariable] = Environment.GetEnvironmentVariable(SuiteSettings.TransportsVariable) is { Length: > 0 } t
                ? t : "(all registered) " + string.Join(",", SuiteSettings.RequestedTransports),
            [SuiteSettings.SizesVariable] = string.Join(",", SuiteSettings.Sizes),
            [SuiteSettings.PlacementVariable] = SuiteSettings.Placement.Name(),
            [SuiteSettings.IsolationVariable] = SuiteSettings.Isolation.Name(),
            [SuiteSettings.RuntimeVariable] = $"{SuiteSettings.Runtime}: the benchmark processes (clients) {Harness.ClientRuntime.Describe(SuiteSettings.Runtime)}, the servers JIT",
            ["job"] = SuiteConfig.NamedJob(args) ?? SuiteConfig.DefaultJobDescription,
            ["arguments"] = string.Join(' ', args.Select(CommandLineText.Quote)),
        };
        foreach (var (variable, value) in SuiteSettings.OptionVariables)
        {
            options[variable] = value ?? "(unset: each transport's default)";
        }
        return options;
    }

    /// <summary>A suite entry's case: its transport and options (<see cref="Contract.Options.OptionValues.Identity"/>), the suite's placement, isolation and runtime.</summary>
    public static CaseKey KeyOf(string entry, int size, string scenario = RoundTripBenchmark.Scenario, int clients = 1, int? replySize = null) =>
        SuiteSettings.Spec(entry, new MessageSizes(size, replySize ?? size), scenario, clients).Key;
}
