using System.CommandLine;
using System.CommandLine.Parsing;
using System.Globalization;
using System.Text;
using IpcBench.Cli.Parsing;
using IpcBench.Contract;
using IpcBench.Harness.Hosting;
using IpcBench.Harness.Running;
using IpcBench.Reporting;
using IpcBench.Reporting.Collecting;
using IpcBench.Reporting.Comparison;
using IpcBench.Reporting.Writers;

namespace IpcBench.Cli.Commands;

/// <summary>A plan's cases, checked before anything runs: each parsed as ping parses it, those that cannot run here set aside.</summary>
internal sealed class PlanRun
{
    private readonly List<(Rounds.PlannedCase Planned, CaseSpec Spec)> _cases;
    private readonly IReadOnlyList<SkippedCase> _skipped;

    private PlanRun(List<(Rounds.PlannedCase, CaseSpec)> cases, IReadOnlyList<SkippedCase> skipped) => (_cases, _skipped) = (cases, skipped);

    /// <summary>Every case parsed (a mistake in any is a <see cref="UsageException"/> naming it), and asked whether it runs here.</summary>
    public static async Task<PlanRun> PrepareAsync(IReadOnlyList<IReadOnlyList<string>> arguments, CancellationToken ct)
    {
        var cases = new List<(Rounds.PlannedCase, CaseSpec)>();
        var skipped = new List<SkippedCase>();
        for (int i = 0; i < arguments.Count; i++)
        {
            var (transport, spec) = Parse(arguments[i], $"case {i + 1} ({string.Join(' ', arguments[i])})");
            if (await CaseRunner.RefusesAsync(transport, spec, ct) is { } why)
            {
                skipped.Add(new SkippedCase(spec.Key.Transport, spec.Key.Options, spec.Key.Size, why));
                continue;
            }
            cases.Add((new Rounds.PlannedCase($"{spec.Key.Transport} {Units.Size(spec.Key.Size)} {spec.Key.Options}".TrimEnd(), arguments[i]), spec));
        }
        return new PlanRun(cases, skipped);
    }

    /// <summary>--each's options, checked as ping's before any case is read, so that a mistake in them is named as theirs.</summary>
    public static void CheckEach(OptionResult each)
    {
        string[] common = [.. CommandLineParser.SplitCommandLine(each.GetValueOrDefault<string>() ?? "")];
        var (_, parsed) = ParseAsPing(common.Contains(ServeRequest.TransportOption) ? common : [ServeRequest.TransportOption, "tcp", .. common]);
        if (parsed.Errors.Count > 0)
        {
            each.AddError($"--each: {parsed.Errors[0].Message}");
        }
    }

    private static (ITransport, CaseSpec) Parse(IReadOnlyList<string> arguments, string which)
    {
        var (options, parsed) = ParseAsPing([.. arguments]);
        if (parsed.Errors.Count > 0)
        {
            throw new UsageException($"{which}: {parsed.Errors[0].Message}");
        }
        try
        {
            var (transport, spec) = options.Spec(parsed);
            return spec.Server is null ? (transport, spec) : throw new UsageException("a plan starts its servers: no --server");
        }
        catch (UsageException e)
        {
            throw new UsageException($"{which}: {e.Message}");
        }
    }

    private static (PingOptions, ParseResult) ParseAsPing(string[] arguments)
    {
        var options = new PingOptions();
        var ping = new Command("ping");
        options.AddTo(ping);
        return (options, ping.Parse(arguments));
    }

    /// <summary>Runs the cases in rotated rounds, a process each; every round's results as one run of all the cases.</summary>
    public async Task<PlanResults> RunAsync(int rounds, IReadOnlyList<string> args, CancellationToken ct)
    {
        var started = DateTimeOffset.UtcNow;
        var texts = _cases.Count == 0 ? [.. Enumerable.Repeat(Array.Empty<string>(), rounds)]
            : await Rounds.RunAsync([.. _cases.Select(c => c.Planned)], rounds, line => Console.Error.WriteLine(line), ct);
        var placements = _cases.Select(c => Placements.Parse(c.Spec.Key.Placement)).Distinct().ToList();
        string placement = placements.Count == 1 ? placements[0].Describe() : "per case (each case's placement)";
        var runs = texts.Select((round, r) => new RunResults
        {
            Schema = RunResults.CurrentSchema,
            Id = RunFolder.Id(started, "plan") + (rounds > 1 ? $"-round{r + 1}" : ""),
            Kind = "plan",
            StartedAt = new DateTimeOffset(started.UtcDateTime.Ticks - started.UtcDateTime.Ticks % TimeSpan.TicksPerSecond, TimeSpan.Zero),
            GitCommit = GitCommit.Current(),
            CommandLine = CommandLineText.Join("ipcbench", args),
            Environment = EnvironmentProbe.Describe(placement, new Dictionary<string, string>
            {
                ["rounds"] = rounds.ToString(CultureInfo.InvariantCulture),
                ["round"] = (r + 1).ToString(CultureInfo.InvariantCulture),
                ["cases"] = _cases.Count.ToString(CultureInfo.InvariantCulture),
            }),
            Cases = [.. round.Select((text, i) => ResultsFile.Parse(text, _cases[i].Planned.Name).Cases.Single())],
            Skipped = _skipped,
        }).ToList();
        return new PlanResults(started, runs);
    }
}

/// <summary>A plan's rounds: a run each, every case in each.</summary>
internal sealed record PlanResults(DateTimeOffset Started, IReadOnlyList<RunResults> Rounds)
{
    /// <summary>
    /// For people: each case's p50 and p99 over the rounds (median, its interval, the least and the most), its median
    /// requests/s, and the two levels its launches' p50s fell on when they fell on two (<see cref="Bimodality"/>).
    /// </summary>
    public string Table()
    {
        var text = new StringBuilder(FormattableString.Invariant(
            $"{Rounds.Count} round(s), a process launch per case each round; p50 and p99 in us: median over the launches [its 95% interval, from six launches] (least-most)\n"));
        var first = Rounds[0];
        for (int i = 0; i < first.Cases.Count; i++)
        {
            var all = Rounds.Select(r => r.Cases[i]).ToList();
            string Figure(Func<CaseResult, double> f)
            {
                double[] launches = [.. all.Select(f)];
                return FormattableString.Invariant($"{LaunchMedian.Of(launches).Median,9:0.0} {LaunchMedian.Spread(launches)}");
            }
            text.Append(CultureInfo.InvariantCulture,
                $"  {first.Cases[i].Transport,-16} {Units.Size(first.Cases[i].Size),7} {first.Cases[i].Options,-28} p50 {Figure(c => c.LatencyUs.P50)}  p99 {Figure(c => c.LatencyUs.P99)}  {LaunchMedian.Of([.. all.Select(c => c.RequestsPerSecond)]).Median:0} requests/s{Levels(all)}\n");
        }
        foreach (var skipped in first.Skipped)
        {
            text.Append(CultureInfo.InvariantCulture, $"  {skipped.Transport,-16} skipped: {skipped.Reason}\n");
        }
        return text.ToString();
    }

    /// <summary>"  p50 on two levels: 17.5 us x8, 24.0 us x12", or nothing.</summary>
    private static string Levels(IReadOnlyList<CaseResult> launches) => Bimodality.Of([.. launches.Select(c => c.LatencyUs.P50)]) is { } levels
        ? FormattableString.Invariant($"  p50 on two levels: {levels.Low:0.0} us x{levels.LowCount}, {levels.High:0.0} us x{levels.HighCount}")
        : "";

    /// <summary>
    /// Writes the run folder (with several rounds, a folder of one run folder a round, and beside them the reports of the
    /// rounds together: each case's median round, its interval over the rounds); returns its path.
    /// </summary>
    public string Write(string root)
    {
        string folder = RunFolder.Create(root, RunFolder.Id(Started, "plan"));
        try
        {
            if (Rounds.Count == 1)
            {
                ReportWriter.WriteAll(folder, Rounds[0]);
                return folder;
            }
            for (int r = 0; r < Rounds.Count; r++)
            {
                ReportWriter.WriteAll(RunFolder.Create(folder, $"round-{r + 1}"), Rounds[r]);
            }
            ReportWriter.WriteReports(folder, RunPool.Pool(Rounds)); // the rounds' reports, as 'ipcbench report' makes them again
            RunFolder.MarkComplete(folder);
            return folder;
        }
        catch
        {
            Directory.Delete(folder, recursive: true); // no half of a plan's folder (its figures were printed)
            throw;
        }
    }
}
