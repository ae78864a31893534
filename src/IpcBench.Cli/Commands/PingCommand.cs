using System.CommandLine;
using IpcBench.Cli.Parsing;
using IpcBench.Harness.Running;
using IpcBench.Reporting;
using IpcBench.Reporting.Collecting;
using IpcBench.Reporting.Writers;

namespace IpcBench.Cli.Commands;

/// <summary><c>ipcbench ping</c>: its options made a <see cref="CaseSpec"/>, run by <see cref="CaseRunner"/>, printed and kept.</summary>
internal sealed class PingCommand
{
    private readonly PingOptions _options = new();
    private readonly Option<string?> _json = new("--json") { Description = "also write the run's results to FILE, in results.json's format (docs/reports.md)", HelpName = "FILE" };
    private readonly Option<string?> _results = new("--results")
    {
        Description = "where the run folder goes (default: IPCBENCH_RESULTS, else results/ at the repository root, else ./results); its path is printed on stderr",
        HelpName = "DIR",
    };
    private readonly Option<bool> _noResults = new("--no-results") { Description = "write no run folder" };

    public static Command Create()
    {
        var ping = new PingCommand();
        var command = new Command("ping", """
            Sends requests and times every round trip; every reply's length and content are checked. One client with one
            request in flight by default; --clients, --in-flight and --rate (an open loop) put it under load. Without
            --server, starts 'ipcbench serve' as a child process and stops it afterwards. Each run writes a folder
            DIR/<yyyyMMdd-HHmmss>-ping/ with results.json, summary.md, summary.csv, env.md and two SVG charts; see
            'ipcbench report' and 'ipcbench compare'.

            Exit codes: 0 success; 1 the run failed (server unreachable or died, bad reply); 2 bad options; 3 the transport
            or size does not run here; 130 interrupted (SIGINT, SIGTERM).
            """)
        {
            ping._json, ping._results, ping._noResults,
        };
        ping._options.AddTo(command);
        command.Validators.Add(result =>
        {
            if (result.GetResult(ping._results) is not null && result.GetResult(ping._noResults) is not null)
            {
                result.AddError($"{ping._results.Name} and {ping._noResults.Name} exclude each other");
            }
        });
        command.SetAction(ping.RunAsync);
        return command;
    }

    private async Task<int> RunAsync(ParseResult parsed, CancellationToken ct)
    {
        var started = DateTimeOffset.UtcNow;
        var (transport, spec) = _options.Spec(parsed);
        if (await CaseRunner.RefusesAsync(transport, spec, ct) is { } notHere)
        {
            throw new UnsupportedException(notHere);
        }
        string? root = parsed.GetValue(_noResults) ? null : RunFolder.Root(parsed.GetValue(_results));
        if (root is not null && RunFolder.Unwritable(root) is { } why)
        {
            throw new UsageException($"cannot write results to {root}: {why}; give --results (or {RunFolder.ResultsVariable}) a folder you can write, or pass --no-results");
        }
        var progress = Console.IsErrorRedirected ? null : Progress(spec);
        var outcome = await CaseRunner.RunAsync(transport, spec, progress, line => Console.Error.WriteLine($"[server] {line}"), ct);
        if (progress is not null)
        {
            Console.Error.Write("\r" + new string(' ', 72) + "\r");
        }
        var results = PingResults.Build(parsed.Tokens.Select(t => t.Value).ToList(), started, transport, spec, outcome);
        Console.Out.Write(PingOutput.Text(results));
        if (parsed.GetValue(_json) is { } jsonPath)
        {
            RegularFile.Replace(jsonPath, ResultsFile.Serialize(results));
        }
        if (root is not null)
        {
            Console.Error.WriteLine($"results: {PingResults.Write(results, root)}");
        }
        return ExitCodes.Success;
    }

    /// <summary>A progress line on a terminal's stderr: what runs, how far, and about how long is left.</summary>
    private static Action<double> Progress(CaseSpec spec)
    {
        var watch = System.Diagnostics.Stopwatch.StartNew();
        int lanes = spec.Key.Clients * spec.Key.InFlight;
        string load = lanes > 1 ? $" x {lanes} loops" : "";
        return done =>
        {
            var left = TimeSpan.FromSeconds(watch.Elapsed.TotalSeconds * (1 - done) / Math.Max(done, 1e-6));
            Console.Error.Write($"\r  {spec.Key.Transport} {spec.Key.Size} B{load}: {100 * done:0}% measured, about {left.TotalSeconds:0} s left   ");
        };
    }
}
