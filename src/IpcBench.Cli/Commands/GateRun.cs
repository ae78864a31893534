using System.Diagnostics;
using System.Globalization;
using System.Text;
using System.Text.Json;
using IpcBench.Contract.Options;
using IpcBench.Harness.Hosting;
using IpcBench.Harness.Measurement;
using IpcBench.Harness.Running;
using IpcBench.Kit.Files;
using IpcBench.Kit.Framing;
using IpcBench.Kit.Processes;
using IpcBench.Reporting;
using IpcBench.Reporting.Collecting;
using IpcBench.Reporting.Comparison;

namespace IpcBench.Cli.Commands;

/// <summary>The gate could not judge: a build that is not one, a ping that failed, rounds that compare refuses. Exit 2.</summary>
internal sealed class GateFailure(string message) : Exception(message);

/// <summary>
/// One gate: BASE's and HEAD's pings of each case in rounds (A B, then B A, ...), each a process launch written to a run
/// folder of its own under A/ and B/ (as <c>compare</c> reads rounds), judged after <c>rounds</c> and again after each
/// further round of the cases it cannot tell yet, up to <c>maxRounds</c>.
/// </summary>
/// <param name="slowdown">Test-only: HEAD's servers wait this fraction of BASE's first p50 of a case before each reply.</param>
/// <param name="pingOptions">What every ping is given beside its case (its length, its placement).</param>
/// <param name="failOn">The verdicts that make the exit code 1 (slower, unless --fail-on says otherwise).</param>
internal sealed class GateRun(ServerCommand baseBuild, ServerCommand headBuild, int rounds, int maxRounds, double threshold, double? slowdown,
    string[] pingOptions, IReadOnlyCollection<Verdict> failOn)
{
    public sealed record GateCase(string Transport, string Size)
    {
        public int Bytes => Quantities.ParseSize(Size, LengthPrefix.DefaultMaxPayload)!.Value;

        public override string ToString() => $"{Transport}:{Size}";
    }

    /// <summary>Each transport at each size; "all": every transport HEAD's list says runs here and BASE knows.</summary>
    public async Task<IReadOnlyList<GateCase>> CasesAsync(string[] transports, string[] sizes, CancellationToken ct)
    {
        string[] names = transports.Contains("all") ? await AllAsync(ct) : transports;
        return [.. names.SelectMany(t => sizes.Select(s => new GateCase(t, s)))];
    }

    private async Task<string[]> AllAsync(CancellationToken ct)
    {
        var baseKnows = (await ListAsync(baseBuild, ct)).Select(t => t.Name).ToHashSet();
        var runsHere = (await ListAsync(headBuild, ct)).Where(t => t.Runs).Select(t => t.Name).ToList();
        if (runsHere.Where(t => !baseKnows.Contains(t)).ToList() is { Count: > 0 } added)
        {
            Console.WriteLine($"== not gated, new in HEAD (the base has no such transport): {string.Join(' ', added)}");
        }
        string[] gated = [.. runsHere.Where(baseKnows.Contains)];
        return gated.Length > 0 ? gated : throw new GateFailure("--transports all: no transport runs here");
    }

    /// <summary>A build's transports as its <c>list --json</c> gives them to scripts, never its table for people.</summary>
    private static async Task<List<(string Name, bool Runs)>> ListAsync(ServerCommand build, CancellationToken ct)
    {
        var ended = await BoundedChild.RunAsync(Child(build, ["list", "--json"], null), "ipcbench list --json", TimeSpan.FromMinutes(5), ct);
        if (ended.ExitCode != 0)
        {
            throw new GateFailure($"{build.ExecutablePath} list --json failed (exit {ended.ExitCode}): {ended.LastError}");
        }
        using var json = JsonDocument.Parse(ended.Stdout);
        return [.. json.RootElement.EnumerateArray().Select(t => (t.GetProperty("name").GetString()!, t.GetProperty("runs").GetBoolean()))];
    }

    /// <summary>Runs the gate, its rounds in <paramref name="keep"/> (or a private folder removed after); the exit code.</summary>
    public async Task<int> RunAsync(IReadOnlyList<GateCase> cases, string? keep, CancellationToken ct)
    {
        long started = Stopwatch.GetTimestamp();
        string? created = null;
        string runs = keep ?? Path.GetDirectoryName(PrivateDirectory.Resolve(PrivateDirectory.DefaultPath("gate"), out created))!;
        try
        {
            Console.WriteLine($"== {rounds} to {maxRounds} rounds of {string.Join(' ', cases)} ({string.Join(' ', pingOptions)})"
                + (slowdown is double s ? FormattableString.Invariant($", B slowed by {s * 100:0.#}% (test-only)") : ""));
            var (verdicts, round) = await JudgedRoundsAsync(cases, runs, ct);
            Console.Write(ComparisonMarkdown.Render(verdicts));
            string judged = string.Join(" or ", failOn.Select(ComparisonJson.Name));
            Console.WriteLine(FormattableString.Invariant($"== A/B done in {Stopwatch.GetElapsedTime(started).TotalSeconds:0} s, {round} rounds: ")
                + (verdicts.Any(failOn) ? $"a case is {judged}" : $"no case {judged}"));
            return verdicts.Any(failOn) ? ExitCodes.Failed : ExitCodes.Success;
        }
        finally
        {
            PrivateDirectory.Remove(created);
        }
    }

    /// <summary>Rounds until every case is told (or <c>maxRounds</c>): the last verdicts, and how many rounds ran.</summary>
    private async Task<(RunComparison Verdicts, int Rounds)> JudgedRoundsAsync(IReadOnlyList<GateCase> cases, string runs, CancellationToken ct)
    {
        var delays = new Dictionary<GateCase, string>();
        var pending = cases.ToList();
        for (int round = 1; ; round++)
        {
            foreach (var c in pending.ToList())
            {
                try
                {
                    await RoundAsync(c, round, runs, delays, ct);
                }
                catch (NotGated e)
                {
                    Console.WriteLine($"== not gated: {c.Transport} at {c.Size}: {e.Message}");
                    Directory.Delete(Path.Combine(runs, "A", Folder(c, round)), recursive: true);
                    pending.Remove(c);
                }
            }
            if (pending.Count == 0)
            {
                throw new GateFailure("no case to gate: the base build refused every one here");
            }
            if (round < rounds)
            {
                continue;
            }
            var verdicts = Judge(runs);
            pending = [.. pending.Where(c => verdicts.Cases.Any(v => v.Verdict == Verdict.CannotTell && v.Current.Transport == c.Transport && v.Current.Size == c.Bytes))];
            if (pending.Count == 0 || round >= maxRounds)
            {
                return (verdicts, round);
            }
            Console.WriteLine($"  cannot tell yet after {round} rounds: {string.Join(' ', pending)}; another round of those");
        }
    }

    /// <summary>One round of one case: A then B in odd rounds, B then A in even ones.</summary>
    private async Task RoundAsync(GateCase c, int round, string runs, Dictionary<GateCase, string> delays, CancellationToken ct)
    {
        var line = new StringBuilder($"  round {round} {c.Transport} {c.Size} B:");
        foreach (bool isBase in round % 2 == 1 ? new[] { true, false } : [false, true])
        {
            string? delay = !isBase && slowdown is not null ? delays[c] : null; // A ran first in round 1
            double p50 = await PingAsync(isBase ? "A" : "B", c, round, runs, delay, ct);
            if (isBase && slowdown is double fraction)
            {
                delays.TryAdd(c, (p50 * fraction).ToString("0.000", CultureInfo.InvariantCulture));
            }
            line.Append(CultureInfo.InvariantCulture, $" {(isBase ? "A" : "B")} p50 {p50:0.0} us");
        }
        Console.WriteLine(line);
    }

    /// <summary>One launch of a side's ping, its run folder and stderr under SIDE/CASE-roundN; its p50.</summary>
    private async Task<double> PingAsync(string side, GateCase c, int round, string runs, string? delayUs, CancellationToken ct)
    {
        string folder = Path.Combine(runs, side, Folder(c, round));
        Directory.CreateDirectory(folder);
        var info = Child(side == "A" ? baseBuild : headBuild, ["ping", "--transport", c.Transport, "--size", c.Size, .. pingOptions, "--results", folder], delayUs);
        var ended = await BoundedChild.RunAsync(info, $"{side}'s ping of {c.Transport} at {c.Size}", Rounds.CaseTimeout, ct);
        await File.WriteAllTextAsync(Path.Combine(folder, "stderr.txt"), ended.Stderr, ct);
        if (ended.ExitCode == ExitCodes.Unsupported && side == "A" && round == 1)
        {
            throw new NotGated(ended.LastError);
        }
        return ended.ExitCode == 0
            ? RunPool.Read(folder).Cases[0].LatencyUs.P50
            : throw new GateFailure($"{side}'s ping of {c.Transport} at {c.Size} failed (round {round}, exit {ended.ExitCode}): {ended.LastError}");
    }

    private static string Folder(GateCase c, int round) => $"{c.Transport}-{c.Size}-round{round}";

    /// <summary>
    /// The base build refused a case here in its first round (ping's exit 3: udp at 100 KB): the case is left out of the
    /// gate, said aloud, as 'list' leaves out a transport that does not run here. HEAD refusing what BASE ran is a failure.
    /// </summary>
    private sealed class NotGated(string why) : Exception(why);

    /// <summary>compare's verdicts on the rounds so far, written beside them (verdicts.json for scripts, compare.md for people).</summary>
    private RunComparison Judge(string runs)
    {
        var verdicts = RunComparison.Compare(RunPool.Read(Path.Combine(runs, "A")), RunPool.Read(Path.Combine(runs, "B")), threshold);
        ComparisonJson.Write(Path.Combine(runs, "verdicts.json"), verdicts);
        RegularFile.Replace(Path.Combine(runs, "compare.md"), ComparisonMarkdown.Render(verdicts));
        return verdicts;
    }

    /// <summary>
    /// A build's command, run with its own servers (no IPCBENCH_EXE inherited: BASE's ping must not start HEAD's servers)
    /// and the test slowdown only where it is asked for.
    /// </summary>
    private static ProcessStartInfo Child(ServerCommand build, string[] args, string? delayUs)
    {
        var info = build.StartInfo(args);
        info.Environment.Remove(ServerCommand.EnvironmentVariable);
        info.Environment.Remove(ServerStats.TestDelayVariable);
        if (delayUs is not null)
        {
            info.Environment[ServerStats.TestDelayVariable] = delayUs;
        }
        return info;
    }
}
