using System.CommandLine;
using System.Globalization;
using IpcBench.Reporting;
using IpcBench.Reporting.Comparison;

namespace IpcBench.Cli.Commands;

/// <summary><c>ipcbench compare BASELINE CURRENT</c>: which cases got slower or faster, with a test that noise does not pass.</summary>
internal static class CompareCommand
{
    public const double DefaultThreshold = 0.10;

    public static Command Create()
    {
        var baseline = new Argument<string>("BASELINE")
        {
            Description = "a run folder (results/20261122-005250-bench), a results.json, or a folder of run folders: rounds of the same cases, pooled (benchmarks/ab.sh)",
        };
        var current = new Argument<string>("CURRENT") { Description = "the run to judge against BASELINE, likewise" };
        var threshold = Parsing.Options.Checked("--threshold", "the p50 change that matters: 10%, 15 ...", "PERCENT", DefaultThreshold,
            text => ParseThreshold(text) is double t ? (true, t) : (false, 0), "a percentage such as 10% or 15");
        var allowDifferent = new Option<string[]>("--allow-different")
        {
            Description = $"compare although the runs differ in these ({string.Join(", ", Comparability.RunKeys.Except(Comparability.NeverAllowed))}, or a case option such as io); never placement",
            HelpName = "KEY,...",
            CustomParser = result => [.. result.Tokens.SelectMany(t => t.Value.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))],
        };
        var json = new Option<string?>("--json")
        {
            Description = "also write each common case's key, verdict, p50 change, p-value and interval to FILE as JSON, for scripts (docs/cli.md)",
            HelpName = "FILE",
        };
        var failOn = FailOnOption();
        var command = new Command("compare", """
            Compares two runs case by case (a case: transport, options, payload size and placement) and prints a markdown table: p50
            and p99 of both runs and their change, the change in requests/s, the p-value, and a verdict. A folder of run
            folders (a plan's --rounds, benchmarks/ab.sh's rounds) is read as one run with a process launch per round, and a
            case with several launches on both sides is judged on them, since what varies from run to run is the process:
            the 95% interval of the ratio of their p50s (Hodges-Lehmann, distribution-free) wholly above 1 + threshold is
            "slower", wholly below 1 - threshold "faster", wholly within both "same", and anything else "cannot tell" (more
            launches would). A case of one launch on a side is judged on its requests: "slower" when its p50 grew by more
            than the threshold and a two-sided Mann-Whitney U test on the per-request samples gives p < 0.01, a test that
            cannot see how launches vary. Cases in only one run are listed as added or removed and fail nothing.

            Runs that differ in placement, isolation, machine (CPU model, logical CPUs), runtime, or an option every case
            of a transport ran with (io=sync against io=async) are not comparable: compare names the differences and
            exits 2, unless --allow-different names each of them; placement it never allows (a round trip across CPUs pays
            the machine's wake-ups, one on one CPU does not).

            --json FILE also writes the verdicts for a script to read: one record per case in both runs, with
            its key (transport, options, size, placement), its verdict (same, slower, faster, cannot-tell), its p50 change,
            p-value, launches a side and the p50 ratio's interval.

            Exit codes: 0 no case is slower ("cannot tell" included); 1 at least one case is slower (or, with --fail-on, has one
            of the verdicts it names); 2 not comparable, bad options, a missing or malformed results file, a schema version
            this ipcbench does not read, or no case in common (no FILE written).
            """) { baseline, current, threshold, allowDifferent, json, failOn };
        command.SetAction(parsed => Run(parsed.GetValue(baseline)!, parsed.GetValue(current)!, parsed.GetValue(threshold),
            parsed.GetValue(allowDifferent) ?? [], parsed.GetValue(json), FailOn(parsed.GetValue(failOn))));
        return command;
    }

    private static int Run(string baseline, string current, double threshold, string[] allowDifferent, string? json, Verdict[] failOn)
    {
        RunComparison comparison;
        try
        {
            var (before, after) = (RunPool.Read(baseline), RunPool.Read(current));
            if (UnknownKey(allowDifferent, before, after) is { } why)
            {
                Console.Error.WriteLine($"ipcbench compare: {why}");
                return ExitCodes.Usage;
            }
            comparison = RunComparison.Compare(before, after, threshold, allowDifferent: allowDifferent);
        }
        catch (NotComparableException e)
        {
            Console.Error.WriteLine($"ipcbench compare: {e.Message}");
            Console.Error.WriteLine($"ipcbench compare: compare runs made alike, or pass --allow-different {string.Join(",", e.Differences.Select(d => d.Key))}");
            return ExitCodes.Usage;
        }
        catch (Exception e) when (e is ResultsFormatException or IncomparableRunsException)
        {
            Console.Error.WriteLine($"ipcbench compare: error: {e.Message}");
            return ExitCodes.Usage;
        }
        if (json is not null)
        {
            try
            {
                ComparisonJson.Write(json, comparison);
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                Console.Error.WriteLine($"ipcbench compare: cannot write {json}: {e.Message}");
                return ExitCodes.Usage;
            }
        }
        Console.Out.Write(ComparisonMarkdown.Render(comparison));
        return comparison.Any(failOn) ? ExitCodes.Failed : ExitCodes.Success;
    }

    /// <summary>
    /// The verdicts --fail-on gave, or slower when it is absent (an array option reads as empty then; the parser refuses
    /// an empty list). Not the option's default value, whose help would read "Slower", a word the option does not take.
    /// </summary>
    public static Verdict[] FailOn(Verdict[]? given) => given is { Length: > 0 } ? given : [Verdict.Slower];

    /// <summary>
    /// --fail-on, compare's and the gate's: the verdicts that make the exit code 1. A check that every case is the same
    /// (a run against itself) fails on the other three; one that a slowdown is caught fails on all but slower.
    /// </summary>
    public static Option<Verdict[]> FailOnOption() => new("--fail-on")
    {
        Description = "exit 1 when a case's verdict is one of these: same, slower, faster, cannot-tell (default slower)",
        HelpName = "VERDICT,...",
        CustomParser = result =>
        {
            string[] names = [.. result.Tokens.SelectMany(t => t.Value.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))];
            if ((names.Length == 0 ? "" : names.FirstOrDefault(n => ComparisonJson.Parse(n) is null)) is { } bad)
            {
                result.AddError($"--fail-on must list verdicts (same, slower, faster, cannot-tell), not '{bad}'");
                return [];
            }
            return [.. names.Select(n => ComparisonJson.Parse(n)!.Value).Distinct()];
        },
    };

    /// <summary>
    /// Why <paramref name="keys"/> cannot be what --allow-different means, or null: each must name something runs can
    /// differ in, a run key or an option a case of either run has. A misspelt key would otherwise allow nothing, silently.
    /// </summary>
    private static string? UnknownKey(string[] keys, RunResults before, RunResults after)
    {
        if (keys.FirstOrDefault(Comparability.NeverAllowed.Contains) is { } never)
        {
            return $"--allow-different cannot allow {never}: a round trip across CPUs pays wake-ups of the other CPU that one on one CPU "
                + "does not (env.md gives their cost here), so no case at one placement is a case at another; measure both runs at one placement";
        }
        var known = Comparability.RunKeys.Except(Comparability.NeverAllowed).Concat(before.Cases.Concat(after.Cases).SelectMany(c => CaseOptions.Parse(c.Options)).Select(kv => kv.Key))
            .Distinct().ToList();
        return keys.FirstOrDefault(k => !known.Contains(k)) is { } unknown
            ? $"--allow-different names '{unknown}', which these runs cannot differ in: name {string.Join(", ", known)}"
            : null;
    }

    /// <summary>"10%", "10" or "7.5%": a percentage above 0 and below 1000, as a fraction; null otherwise.</summary>
    public static double? ParseThreshold(string text)
    {
        string number = text.Trim().TrimEnd('%').Trim();
        return double.TryParse(number, NumberStyles.Float, CultureInfo.InvariantCulture, out double percent) && percent > 0 && percent < 1000
            ? percent / 100
            : null;
    }
}
