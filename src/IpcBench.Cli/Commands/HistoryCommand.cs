using System.CommandLine;
using IpcBench.Reporting.Collecting;
using IpcBench.Reporting.History;

namespace IpcBench.Cli.Commands;

/// <summary><c>ipcbench history RUN...</c>: each case's median and interval over a series of runs, commit by commit.</summary>
internal static class HistoryCommand
{
    public static Command Create()
    {
        var runs = new Argument<string[]>("RUN")
        {
            Description = "a kept gate (benchmarks/ab.sh --keep: B/ and verdicts.json), a run folder, a results.json, or a folder of rounds",
            Arity = ArgumentArity.OneOrMore,
        };
        var html = new Option<string?>("--html") { Description = "also write the history as one self-contained page, a chart a case", HelpName = "FILE" };
        var json = new Option<string?>("--json") { Description = "also write the history for scripts (docs/cli.md)", HelpName = "FILE" };
        var command = new Command("history", """
            Puts runs side by side in the order they were measured, commit by commit: for each case, the median p50 of each
            run's process launches with its 95% interval, and, for a kept gate (benchmarks/ab.sh --keep, the GitHub workflow's
            history branch), what the gate said of it: a commit it called slower is marked. A kept gate counts as its
            current side (B/). Where the machine or a setting changed between two runs (another runner's CPU), the history
            says so there instead of comparing across it. Prints markdown; --html and --json write the page and the data.

            Exit codes: 0 written; 2 a RUN that holds no run, a damaged results.json or verdicts.json, a folder whose rounds
            were measured apart, or a FILE that cannot be written.
            """) { runs, html, json };
        command.SetAction(parsed => Run(parsed.GetValue(runs)!, parsed.GetValue(html), parsed.GetValue(json)));
        return command;
    }

    private static int Run(string[] paths, string? html, string? json)
    {
        if (!ResultsReading.TryRead("history", () => RunHistory.Read(paths), out var history))
        {
            return ExitCodes.Usage;
        }
        foreach (var (file, render) in new (string?, Func<RunHistory, string>)[] { (html, HistoryPage.Html), (json, HistoryJson.Render) })
        {
            try
            {
                if (file is not null)
                {
                    RegularFile.Replace(file, render(history));
                }
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException)
            {
                Console.Error.WriteLine($"ipcbench history: cannot write {file}: {e.Message}");
                return ExitCodes.Usage;
            }
        }
        Console.Out.Write(HistoryPage.Markdown(history));
        return ExitCodes.Success;
    }
}
