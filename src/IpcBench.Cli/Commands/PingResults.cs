using System.Globalization;
using IpcBench.Contract.Options;
using IpcBench.Harness;
using IpcBench.Harness.Hosting;
using IpcBench.Harness.Measurement;
using IpcBench.Reporting;
using IpcBench.Reporting.Collecting;
using IpcBench.Reporting.Writers;

namespace IpcBench.Cli.Commands;

/// <summary>A ping run as IpcBench results (one case): what ping prints, writes with --json, and keeps as a run folder.</summary>
internal static class PingResults
{
    /// <summary>Everything about the run that the results record.</summary>
    public sealed record Run(
        IReadOnlyList<string> Args, DateTimeOffset Started, OptionValues Options, Uri Address, Uri? RemoteServer,
        LoopOptions Loop, Placement Placement, string PlacementDescription, LoopResult Result,
        string Scenario = CaseKey.Steady, Isolation Isolation = Isolation.None, string? IsolationDescription = null, int ClientProcesses = 1,
        string Runtime = ClientRuntime.Jit);

    /// <summary>Writes the run folder under <paramref name="resultsRoot"/> (see <see cref="RunFolder.Root"/>); returns its path.</summary>
    public static string Write(RunResults results, string? resultsRoot)
    {
        string folder = RunFolder.Create(RunFolder.Root(resultsRoot), results.Id);
        try
        {
            ReportWriter.WriteAll(folder, results);
        }
        catch
        {
            Directory.Delete(folder, recursive: true); // a disk that filled up keeps no half of a run (the figures are on stdout)
            throw;
        }
        return folder;
    }

    public static RunResults Build(Run run)
    {
        var (transport, loop) = (run.Options.Transport, run.Loop);
        var options = new Dictionary<string, string>
        {
            ["transport"] = transport.Name,
            ["size"] = Invariant(loop.Size),
            ["reply_size"] = loop.ReplySize is int reply ? Invariant(reply) : "the request's (an echo)",
            ["count"] = loop.Duration > TimeSpan.Zero ? $"as many as {Seconds(loop.Duration)} allow" : Invariant(loop.Count),
            ["warmup"] = loop.WarmupDuration > TimeSpan.Zero ? Seconds(loop.WarmupDuration) : Invariant(loop.Warmup),
            ["clients"] = Invariant(loop.Clients),
            ["client_processes"] = Invariant(run.ClientProcesses),
            ["in_flight"] = Invariant(loop.InFlight),
            ["rate"] = loop.Rate > 0 ? $"{Invariant(loop.Rate)} requests/s (open loop)" : "closed loop",
            ["placement"] = run.Placement.Name(),
            ["scenario"] = run.Scenario switch
            {
                CaseKey.Connect => "connect (connect + request + close per cycle)",
                CaseKey.Start => "start (a new client process per request: its start, connect and request)",
                _ => "steady",
            },
            ["client_runtime"] = ClientRuntime.Describe(run.Runtime),
            ["gap"] = loop.Gap > TimeSpan.Zero ? $"{Invariant(loop.Gap.TotalMilliseconds)} ms" : "none",
            ["server"] = run.RemoteServer?.ToString() ?? "started by ping",
            ["address"] = AddressQuery.WithoutQuery(run.Address).ToString(),
            ["isolation"] = run.IsolationDescription ?? "none (client and server side by side)",
        };
        if (run.RemoteServer is null && ServerStats.TestDelayUs() is var delay and > 0)
        {
            options["test_server_delay_us"] = $"{Invariant(delay)} (test-only: a slowdown on purpose, {ServerStats.TestDelayVariable})";
        }
        foreach (var option in OptionValues.Of(transport).Where(o => o.Scope != OptionScope.Address))
        {
            options[option.Name] = run.Options.IsGiven(option) ? run.Options[option] : $"{option.Default} (default)";
        }
        var key = CaseKey.ForLoop(transport.Name, run.Options.Identity(), loop, run.Scenario,
            run.Placement.Name(), run.Isolation, run.ClientProcesses, run.Runtime);
        return new RunResults
        {
            Schema = RunResults.CurrentSchema,
            Id = RunFolder.Id(run.Started, "ping"),
            Kind = "ping",
            StartedAt = TruncateToSeconds(run.Started),
            GitCommit = GitCommit.Current(),
            CommandLine = CommandLineText.Join("ipcbench", run.Args),
            Environment = EnvironmentProbe.Describe(run.PlacementDescription, options),
            Cases = [Figures.Case(key, transport.Family, run.Result)],
            Skipped = [],
        };
    }

    private static DateTimeOffset TruncateToSeconds(DateTimeOffset t) =>
        new(t.UtcDateTime.Ticks - t.UtcDateTime.Ticks % TimeSpan.TicksPerSecond, TimeSpan.Zero);

    private static string Invariant(double n) => n.ToString(CultureInfo.InvariantCulture);

    private static string Seconds(TimeSpan t) => $"{Invariant(t.TotalSeconds)} s";
}
