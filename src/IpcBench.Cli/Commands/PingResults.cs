using System.Globalization;
using IpcBench.Core;
using IpcBench.Core.Hosting;
using IpcBench.Core.Measurement;
using IpcBench.Reporting;

namespace IpcBench.Cli.Commands;

/// <summary>A ping run as a run folder (results.json, summary.md, summary.csv, env.md, charts): one case.</summary>
internal static class PingResults
{
    /// <summary>Everything about the run that the folder records.</summary>
    public sealed record Run(
        IReadOnlyList<string> Args, DateTimeOffset Started, ITransport Transport, Uri Address, Uri? RemoteServer,
        int Size, int Count, int Warmup, TimeSpan Gap, Placement Placement, string PlacementDescription, LoopResult Result,
        bool ConnectScenario = false);

    /// <summary>Writes the run folder under <paramref name="resultsRoot"/> (see <see cref="RunFolder.Root"/>); returns its path.</summary>
    public static string Write(Run run, string? resultsRoot)
    {
        var results = Build(run);
        string folder = RunFolder.Create(RunFolder.Root(resultsRoot), results.Id);
        ReportWriter.WriteAll(folder, results);
        return folder;
    }

    public static RunResults Build(Run run)
    {
        var r = run.Result;
        var query = EndpointOptions.Query(run.Address);
        var options = new Dictionary<string, string>
        {
            ["transport"] = run.Transport.Name,
            ["size"] = Invariant(run.Size),
            ["count"] = Invariant(run.Count),
            ["warmup"] = Invariant(run.Warmup),
            ["placement"] = run.Placement.Name(),
            ["io"] = EndpointOptions.HasIoModes(run.Transport) ? query.GetValueOrDefault("io", "sync") : "- (the transport waits its own way)",
            ["timeout"] = query.GetValueOrDefault("timeout", "10s (default)"),
            ["scenario"] = run.ConnectScenario ? "connect (connect + request + close per cycle)" : "steady",
            ["gap"] = run.Gap > TimeSpan.Zero ? $"{Invariant(run.Gap.TotalMilliseconds)} ms" : "none",
            ["server"] = run.RemoteServer?.ToString() ?? "started by ping",
            ["address"] = run.Address.ToString(),
        };
        if (query.TryGetValue("wait", out string? wait))
        {
            options["wait"] = wait;
        }
        var single = new CaseResult
        {
            Transport = run.Transport.Name,
            Options = CaseOptions.ForCase(run.Address.Query + (run.ConnectScenario ? "&scenario=connect" : ""), EndpointOptions.HasIoModes(run.Transport)),
            Size = run.Size,
            Placement = run.Placement.Name(),
            Count = r.Latency.Count,
            Errors = r.Errors,
            LatencyUs = Figures.Latency(r.Latency),
            RequestsPerSecond = Figures.PerSecond(r.RequestsPerSecond),
            ClientCpuUsPerOp = Figures.Us(r.Cost.CpuUsPerOp),
            ServerCpuUsPerOp = r.ServerCpuUsPerOp is double s ? Figures.Us(s) : null,
            AllocatedBytesPerOp = Figures.Bytes(r.Cost.AllocatedBytesPerOp),
            PercentilesUs = Figures.Curve(r.Curve),
            SamplesUs = Figures.Samples(r.SamplesUs),
        };
        return new RunResults
        {
            Schema = RunResults.CurrentSchema,
            Id = RunFolder.Id(run.Started, "ping"),
            Kind = "ping",
            StartedAt = TruncateToSeconds(run.Started),
            GitCommit = GitCommit.Current(),
            CommandLine = CommandLineText.Join("ipcbench", run.Args.Prepend("ping")),
            Environment = EnvironmentProbe.Describe(run.PlacementDescription, options),
            Cases = [single],
            Skipped = [],
        };
    }

    private static DateTimeOffset TruncateToSeconds(DateTimeOffset t) =>
        new(t.UtcDateTime.Ticks - t.UtcDateTime.Ticks % TimeSpan.TicksPerSecond, TimeSpan.Zero);

    private static string Invariant(double n) => n.ToString(CultureInfo.InvariantCulture);
}
