using System.CommandLine;
using System.CommandLine.Parsing;
using IpcBench.Cli.Parsing;
using IpcBench.Contract.Options;
using IpcBench.Harness.Hosting;
using IpcBench.Harness.Running;
using IpcBench.Reporting;
using IpcBench.Reporting.Collecting;
using IpcBench.Reporting.Writers;
using IpcBench.Transports;

namespace IpcBench.Cli.Commands;

/// <summary>
/// <c>ipcbench plan</c>: many cases in one command, each a ping of its own process, in rotated rounds; one run folder
/// (a round's, or a folder of rounds), a table for people and JSON for scripts.
/// </summary>
internal static class PlanCommand
{
    public static Command Create()
    {
        var file = new Argument<string?>("FILE") { Description = "cases, one per line, each as ping's options ('--transport tcp --size 1KB'); '#' starts a comment", Arity = ArgumentArity.ZeroOrOne };
        var transports = Parsing.Options.List("--transports", "with --sizes, a case per transport and size: tcp,uds,grpc",
            name => TransportRegistry.Names.Contains(name, StringComparer.OrdinalIgnoreCase), "transports of 'ipcbench list'");
        var sizes = Parsing.Options.List("--sizes", "the sizes of --transports' cases: 1,100KB (default 1)",
            size => Quantities.ParseSize(size, PingOptions.LengthPrefixLimit) is not null, "sizes such as 1, 1KB or 100KB");
        var each = new Option<string>("--each") { Description = "ping's options for every case, e.g. \"--count 20000 --placement same-core\"", HelpName = "OPTIONS", DefaultValueFactory = _ => "" };
        each.Validators.Add(PlanRun.CheckEach);
        var rounds = Parsing.Options.Int("--rounds", "how often each case runs, a process launch each time, in an order rotated every round", 1, 1, 1000);
        var json = new Option<string?>("--json") { Description = "also write the rounds' results to FILE: a JSON array of results.json's, one per round", HelpName = "FILE" };
        var results = new Option<string?>("--results") { Description = "where the run folder goes (as ping's)", HelpName = "DIR" };
        var noResults = new Option<bool>("--no-results") { Description = "write no run folder" };
        var command = new Command("plan", """
            Runs many cases in one command: each case is a ping (its options on a line of FILE, or one per transport and
            size of --transports and --sizes, with --each's options for all), run as a process of its own, once a round, the
            cases of each round in an order rotated from the round before. Prints each case's p50 and p99 over the rounds
            (the median, its 95% interval from six rounds, the least and the most, and the two levels its launches fell on
            when they fell on two); writes one run folder (with --rounds N, a folder of N rounds, which 'compare' judges
            launch by launch, and the rounds' reports together, ranking first); --json FILE gives scripts every round's
            results.json. A case that cannot run here is listed as skipped.

            Exit codes: 0 every case ran; 1 a case failed; 2 bad options or a bad plan.
            """) { file, transports, sizes, each, rounds, json, results, noResults };
        command.SetAction(async (parsed, ct) =>
        {
            var cases = Cases(parsed.GetValue(file), parsed.GetValue(transports) ?? [], parsed.GetValue(sizes) ?? [], parsed.GetValue(each)!);
            var plan = await PlanRun.PrepareAsync(cases, ct);
            string? root = parsed.GetValue(noResults) ? null : RunFolder.Root(parsed.GetValue(results));
            if (root is not null && RunFolder.Unwritable(root) is { } why)
            {
                throw new UsageException($"cannot write results to {root}: {why}");
            }
            var run = await plan.RunAsync(parsed.GetValue(rounds), parsed.Tokens.Select(t => t.Value).ToList(), ct);
            Console.Out.Write(run.Table());
            if (parsed.GetValue(json) is { } path)
            {
                RegularFile.Replace(path, "[\n" + string.Join(",\n", run.Rounds.Select(ResultsFile.Serialize)) + "]\n");
            }
            if (root is not null)
            {
                Console.Error.WriteLine($"results: {run.Write(root)}");
            }
            return ExitCodes.Success;
        });
        return command;
    }

    /// <summary>Each case's ping arguments: FILE's lines, then --transports x --sizes; --each's options after each.</summary>
    private static List<IReadOnlyList<string>> Cases(string? file, string[] transports, string[] sizes, string each)
    {
        string[] common = [.. CommandLineParser.SplitCommandLine(each)];
        var cases = new List<IReadOnlyList<string>>();
        if (file is not null)
        {
            string text = File.Exists(file) ? RegularFile.ReadAllText(file, 1 << 20) : throw new UsageException($"{file} does not exist");
            foreach (string line in text.Split('\n').Select(l => l.Split('#')[0].Trim()).Where(l => l.Length > 0))
            {
                cases.Add([.. CommandLineParser.SplitCommandLine(line), .. common]);
            }
        }
        foreach (string transport in transports)
        {
            foreach (string size in sizes.DefaultIfEmpty("1"))
            {
                cases.Add(["--transport", transport, "--size", size, .. common]);
            }
        }
        return cases.Count > 0 ? cases : throw new UsageException("no cases: give a FILE of cases, or --transports");
    }
}
