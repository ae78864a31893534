using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Diagnosers;
using BenchmarkDotNet.Exporters;
using BenchmarkDotNet.Exporters.Csv;
using BenchmarkDotNet.Exporters.Json;
using BenchmarkDotNet.Filters;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Reports;

namespace IpcBench.Benchmarks;

/// <summary>
/// The suite's defaults. The default job is short enough that every socket transport at every size
/// runs in a few minutes on 2 cores; a --job on the command line replaces it.
/// </summary>
public static class SuiteConfig
{
    /// <summary>
    /// 1 warm-up and 6 measured iterations of 100 ms, one call per invocation, and at least one invocation per
    /// iteration (BenchmarkDotNet's minimum is 4): the per-request percentiles come from every request, so a
    /// fast transport's thousands of requests per iteration matter more than the number of iterations, and a
    /// slow case (wcf at 100 KB with its default buffer, 1.25 s a call) must not take 4 calls an iteration.
    /// Shorter than it was (2 warm-up and 8 measured of 200 ms) since the baselines, HTTP and TLS rows came: some 175
    /// cases within ten minutes on 2 cores; a transport at 30 us still gives its percentiles about 20,000 requests.
    /// </summary>
    public static readonly Job DefaultJob = Job.Default
        .WithWarmupCount(1)
        .WithIterationCount(6)
        .WithIterationTime(Perfolizer.Horology.TimeInterval.FromMilliseconds(100))
        .WithMinInvokeCount(1)
        .WithUnrollFactor(1) // a slow transport (tcp-nagle: ~90 ms a request) must not need 16 calls per iteration
        .WithId("Suite")
        .AsDefault();

    /// <summary>What <see cref="DefaultJob"/> is, for the run's recorded options.</summary>
    public const string DefaultJobDescription = "suite default: 1 warm-up and 6 measured iterations of 100 ms, one round trip per invocation, at least one invocation per iteration";

    /// <summary>The job the command line names (--job short, -j dry, --job=medium), or null.</summary>
    public static string? NamedJob(IReadOnlyList<string> args)
    {
        for (int i = 0; i < args.Count; i++)
        {
            if (args[i] is "--job" or "-j" && i + 1 < args.Count)
            {
                return args[i + 1];
            }
            if (args[i].StartsWith("--job=", StringComparison.Ordinal))
            {
                return args[i]["--job=".Length..];
            }
        }
        return null;
    }

    /// <summary>
    /// The runtime setting of every process IpcBench measures (src/Measured.props, which BenchmarkDotNet's own project
    /// for the benchmarks does not take): the runtime's call-counting delay at 10 ms, not 100, so that a case's warm-up
    /// reaches the steady state. The variable is read as hexadecimal: "A" is 10. A mutator: every job runs with it.
    /// </summary>
    private static readonly Job MeasuredProcess = Job.Default.WithEnvironmentVariable("DOTNET_TC_CallCountingDelayMs", "A").AsMutator();

    /// <summary>The suite's configuration, with <see cref="DefaultJob"/> unless the command line names a job.</summary>
    public static IConfig Create(string artifacts, IReadOnlyList<string> args)
    {
        var config = Base(artifacts).AddJob(MeasuredProcess);
        if (SuiteToolchains.For(SuiteSettings.Runtime) is { } runtime)
        {
            config.AddJob(runtime); // a mutator: every job, the default or a named one, is built this way
        }
        return NamedJob(args) is null ? config.AddJob(DefaultJob) : config;
    }

    private static ManualConfig Base(string artifacts) => ManualConfig.CreateEmpty()
        .AddLogger(BenchmarkDotNet.Loggers.ConsoleLogger.Default)
        .AddEventProcessor(new SuiteProgress())
        .AddColumnProvider(DefaultColumnProviders.Instance)
        .AddColumn(SuiteColumn.All)
        .AddDiagnoser(MemoryDiagnoser.Default)
        .AddExporter(MarkdownExporter.GitHub, CsvExporter.Default, JsonExporter.Full)
        .AddAnalyser(DefaultConfig.Instance.GetAnalysers().ToArray())
        .AddValidator(DefaultConfig.Instance.GetValidators().ToArray())
        .AddFilter(new SimpleFilter(c => SizeFits(c) && ClientsFit(c)))
        .WithArtifactsPath(artifacts)
        .WithBuildTimeout(TimeSpan.FromMinutes(20)) // the 120 s default is too short on 2 cores; a NativeAOT build took 6 minutes
        .WithSummaryStyle(SummaryStyle.Default.WithMaxParameterColumnWidth(20))
        .WithOption(ConfigOptions.JoinSummary, true)
        .WithOrderer(new BenchmarkDotNet.Order.DefaultOrderer(BenchmarkDotNet.Order.SummaryOrderPolicy.Declared));

    /// <summary>Leaves out the clients a server cannot serve at once (wcf under Mono); the suite's host says so.</summary>
    private static bool ClientsFit(BenchmarkDotNet.Running.BenchmarkCase c) =>
        c.Parameters["Transport"] is not string name || SuiteSettings.Resolve(name).Capabilities.RejectClients(LatencySidecar.ClientsOf(c)) is null;

    /// <summary>Leaves out the sizes a transport cannot carry (udp: 64 KB datagrams); the suite's host (Program.cs) says so.</summary>
    private static bool SizeFits(BenchmarkDotNet.Running.BenchmarkCase c) =>
        c.Parameters["Transport"] is not string name || MessageSizes.Of(c.Parameters["Size"]) is not { } size
        || SuiteSettings.Resolve(name).Capabilities.RejectSize(size.Request) is null && SuiteSettings.Resolve(name).Capabilities.RejectReplySize(size.Reply, size.Request) is null;
}
