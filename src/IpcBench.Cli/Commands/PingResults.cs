using System.Globalization;
using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Harness;
using IpcBench.Harness.Hosting;
using IpcBench.Harness.Measurement;
using IpcBench.Harness.Running;
using IpcBench.Reporting;
using IpcBench.Reporting.Collecting;
using IpcBench.Reporting.Writers;

namespace IpcBench.Cli.Commands;

/// <summary>A ping run as IpcBench results (one case): what ping prints, writes with --json, and keeps as a run folder.</summary>
internal static class PingResults
{
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

    public static RunResults Build(IReadOnlyList<string> args, DateTimeOffset started, ITransport transport, CaseSpec spec, CaseOutcome outcome)
    {
        var (key, loop) = (spec.Key, spec.Loop(transport));
        var given = spec.OptionValues(transport);
        var options = new Dictionary<string, string>
        {
            ["transport"] = transport.Name,
            ["size"] = Invariant(loop.Size),
            ["reply_size"] = loop.ReplySize is int reply ? Invariant(reply) : "the request's (an echo)",
            ["count"] = loop.Duration > TimeSpan.Zero ? $"as many as {Seconds(loop.Duration)} allow" : Invariant(loop.Count),
            ["warmup"] = loop.WarmupDuration > TimeSpan.Zero ? Seconds(loop.WarmupDuration) : Invariant(loop.Warmup),
            ["clients"] = Invariant(loop.Clients),
            ["client_processes"] = Invariant(key.ClientProcesses),
            ["in_flight"] = Invariant(loop.InFlight),
            ["rate"] = loop.Rate > 0 ? $"{Invariant(loop.Rate)} requests/s (open loop)" : "closed loop",
            ["placement"] = key.Placement,
            ["scenario"] = key.Scenario switch
            {
                CaseKey.Connect => "connect (connect + request + close per cycle)",
                CaseKey.Start => "start (a new client process per request: its start, connect and request)",
                _ => "steady",
            },
            ["client_runtime"] = ClientRuntime.Describe(key.Runtime ?? ClientRuntime.Jit),
            ["gap"] = loop.Gap > TimeSpan.Zero ? $"{Invariant(loop.Gap.TotalMilliseconds)} ms" : "none",
            ["server"] = spec.Server?.ToString() ?? "started by ping",
            ["address"] = AddressQuery.WithoutQuery(outcome.Address).ToString(),
            ["isolation"] = outcome.IsolationDescription ?? "none (client and server side by side)",
        };
        if (spec.Server is null && ServerStats.TestDelayUs() is var delay and > 0)
        {
            options["test_server_delay_us"] = $"{Invariant(delay)} (test-only: a slowdown on purpose, {ServerStats.TestDelayVariable})";
        }
        foreach (var option in OptionValues.Of(transport).Where(o => o.Scope != OptionScope.Address))
        {
            options[option.Name] = given.IsGiven(option) ? given[option] : $"{option.Default} (default)";
        }
        return new RunResults
        {
            Schema = RunResults.CurrentSchema,
            Id = RunFolder.Id(started, "ping"),
            Kind = "ping",
            StartedAt = TruncateToSeconds(started),
            GitCommit = GitCommit.Current(),
            CommandLine = CommandLineText.Join("ipcbench", args),
            Environment = EnvironmentProbe.Describe(outcome.PlacementDescription, options),
            Cases = [outcome.Case],
            Skipped = [],
        };
    }

    private static DateTimeOffset TruncateToSeconds(DateTimeOffset t) =>
        new(t.UtcDateTime.Ticks - t.UtcDateTime.Ticks % TimeSpan.TicksPerSecond, TimeSpan.Zero);

    private static string Invariant(double n) => n.ToString(CultureInfo.InvariantCulture);

    private static string Seconds(TimeSpan t) => $"{Invariant(t.TotalSeconds)} s";
}
