using System.CommandLine;
using System.Globalization;
using IpcBench.Contract.Options;
using IpcBench.Harness.Hosting;
using IpcBench.Kit.Framing;
using IpcBench.Transports;

namespace IpcBench.Cli.Commands;

/// <summary><c>ipcbench gate --base DIR --head DIR</c>: two builds' cases in interleaved rounds, judged on their launches (benchmarks/ab.sh builds them).</summary>
internal static class GateCommand
{
    public static Command Create()
    {
        var baseBuild = new Option<string>("--base") { Description = "the folder of the base build's ipcbench (A)", HelpName = "DIR", Required = true };
        var headBuild = new Option<string>("--head") { Description = "the folder of the build to judge (B)", HelpName = "DIR", Required = true };
        var transports = Parsing.Options.List("--transports", "the transports gated (default tcp), or all: every one HEAD's 'list --json' says runs here that BASE knows",
            name => name == "all" || TransportRegistry.Names.Contains(name, StringComparer.OrdinalIgnoreCase), "transports of 'ipcbench list', or all");
        var sizes = Parsing.Options.List("--sizes", "request sizes, as ping takes them (default 1)",
            size => Quantities.ParseSize(size, LengthPrefix.DefaultMaxPayload) is not null, "sizes such as 1, 1KB or 100KB");
        var rounds = Parsing.Options.Int("--rounds", "each side runs at least N pings of each case (4 is the fewest with an interval)", 6, 1, 1000);
        var maxRounds = Parsing.Options.Int("--max-rounds", "a case the launches cannot tell yet gets another round, up to M", 12, 1, 1000);
        var count = Parsing.Options.Int("--count", "requests a ping (a launch's p50 moves little past 5,000; what varies is the launch)", 5000, 1);
        var duration = Parsing.Options.Duration("--duration", "instead of --count: each ping warms up for D, then measures for D (0.5s), so that a slow transport sends fewer requests");
        var threshold = Parsing.Options.Checked("--threshold", "the p50 change that matters", "PERCENT", CompareCommand.DefaultThreshold,
            text => CompareCommand.ParseThreshold(text) is double t ? (true, t) : (false, 0), "a percentage such as 10% or 15");
        var placement = Parsing.Options.Choice("--placement", "where client and server run (docs/placement.md)", "same-core", "none", "same-core", "cross-core");
        var slowdown = Parsing.Options.Checked<double?>("--inject-slowdown", "test-only: HEAD's servers busy-wait PCT of BASE's first p50 of a case before each reply, a regression the gate must catch",
            "PERCENT", null, text => CompareCommand.ParseThreshold(text) is double t ? (true, t) : (false, null), "a percentage such as 20%", showDefault: false);
        var keep = new Option<string?>("--keep") { Description = "keep the rounds (A/, B/), compare.md and verdicts.json in DIR, a new or empty folder", HelpName = "DIR" };
        var failOn = CompareCommand.FailOnOption();
        var command = new Command("gate", """
            An A/B regression gate that compares like with like: runs the cases of two builds of ipcbench on this machine,
            interleaved (rounds A B, B A, A B ..., each ping a process launch of its own, so that a drift of the machine
            falls on both sides), and judges them as 'compare' does on rounds, the launch being the unit: a case is slower
            when the 95% interval of its launches' p50 ratio, B over A, lies wholly above 1 + threshold, and "cannot tell"
            while the interval spans it. A case it cannot tell gets more rounds, up to --max-rounds (a sequential design).
            benchmarks/ab.sh builds two git revisions and runs this verb of HEAD's build (docs/ci-gate.md).

            Exit codes: 0 no case slower ("cannot tell" included: the table says which); 1 a case slower (or, with
            --fail-on, with one of the verdicts it names); 2 bad options, a build that is not one, or a ping that failed.
            """) { baseBuild, headBuild, transports, sizes, rounds, maxRounds, count, duration, threshold, placement, slowdown, keep, failOn };
        command.SetAction(async (parsed, ct) =>
        {
            var gate = new GateRun(
                Build(parsed.GetValue(baseBuild)!, "--base"), Build(parsed.GetValue(headBuild)!, "--head"),
                parsed.GetValue(rounds), parsed.GetValue(maxRounds), parsed.GetValue(threshold), parsed.GetValue(slowdown),
                Length(parsed.GetValue(count), parsed.GetValue(duration), parsed.GetValue(placement)!), CompareCommand.FailOn(parsed.GetValue(failOn)));
            if (parsed.GetValue(maxRounds) < parsed.GetValue(rounds))
            {
                throw new UsageException($"--max-rounds must be no less than --rounds ({parsed.GetValue(rounds)})");
            }
            try
            {
                var cases = await gate.CasesAsync(parsed.GetValue(transports) is { Length: > 0 } t ? t : ["tcp"], parsed.GetValue(sizes) is { Length: > 0 } s ? s : ["1"], ct);
                return await gate.RunAsync(cases, KeepFolder(parsed.GetValue(keep)), ct);
            }
            catch (Exception e) when (e is not (OperationCanceledException or UsageException))
            {
                // Whatever stopped it (a failed ping, a build's list that is not JSON, rounds compare refuses, a full disk)
                // is not a verdict: exit 1 is a slower case, and CI must not read a failure as one.
                Console.Error.WriteLine($"ipcbench gate: {e.Message}");
                return ExitCodes.Usage;
            }
        });
        return command;
    }

    /// <summary>How to run the ipcbench in <paramref name="folder"/>: a build's folder, or a UsageException.</summary>
    private static ServerCommand Build(string folder, string option) =>
        ServerCommand.ForPath(Path.Combine(folder, "ipcbench.dll")) ?? ServerCommand.ForPath(Path.Combine(folder, "ipcbench"))
        ?? throw new UsageException($"{option} {folder} holds no ipcbench build (ipcbench.dll or ipcbench)");

    /// <summary>What each ping is given beside its case: its length and placement.</summary>
    private static string[] Length(int count, TimeSpan duration, string placement)
    {
        string[] length = duration > TimeSpan.Zero
            ? ["--duration", Milliseconds(duration), "--warmup", Milliseconds(duration)]
            : ["--count", count.ToString(CultureInfo.InvariantCulture)];
        return [.. length, "--placement", placement];
    }

    private static string Milliseconds(TimeSpan duration) => duration.TotalMilliseconds.ToString("0.###", CultureInfo.InvariantCulture) + "ms";

    /// <summary>--keep's folder, made; it must be new or empty, so that the gate replaces nothing it did not make.</summary>
    private static string? KeepFolder(string? keep)
    {
        if (keep is null)
        {
            return null;
        }
        if (Directory.Exists(keep) && Directory.EnumerateFileSystemEntries(keep).Any() || File.Exists(keep))
        {
            throw new UsageException($"--keep {keep} is not empty: name a new or empty folder");
        }
        Directory.CreateDirectory(keep);
        return keep;
    }
}
