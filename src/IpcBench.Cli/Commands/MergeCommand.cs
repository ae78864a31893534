using System.CommandLine;
using IpcBench.Reporting;
using IpcBench.Reporting.Collecting;
using IpcBench.Reporting.Writers;

namespace IpcBench.Cli.Commands;

/// <summary><c>ipcbench merge --into DIR [ISOLATION=]RUN...</c>: several runs as one run folder, with the isolation table of runs measured apart.</summary>
internal static class MergeCommand
{
    public static Command Create()
    {
        var sources = new Argument<string[]>("RUN") { Description = "a run folder or results.json, optionally as ISOLATION=RUN", Arity = ArgumentArity.OneOrMore };
        var into = new Option<string>("--into") { Description = "the folder the merged run folder goes under", HelpName = "DIR", Required = true };
        var skipped = new Option<string[]>("--skipped")
        {
            Description = "a case that could not run, as 'TRANSPORT ISOLATION REASON' (repeatable); listed under Skipped",
            HelpName = "TEXT",
        };
        var command = new Command("merge", """
            Merges runs into one run folder, so that figures measured apart sit in one table: a bare ping, a ping with
            --isolation netns, pings in container pairs. A RUN given as ISOLATION=RUN has
            'isolation=ISOLATION' added to its cases' options (docker-bridge, docker-shared-netns ...); the summary then has
            a transport x isolation table with each isolation's cost as a ratio to the cases without one. Runs whose cases
            were placed differently are refused. Prints the merged run folder.

            Exit codes: 0 written; 2 a missing or malformed run, placements that differ, or a case in two runs.
            """) { sources, into, skipped };
        command.SetAction(parsed => Run(parsed.GetValue(sources)!, parsed.GetValue(into)!, parsed.GetValue(skipped) ?? [], parsed.Tokens.Select(t => t.Value).ToList()));
        return command;
    }

    private static int Run(string[] sources, string into, string[] skipped, IReadOnlyList<string> args)
    {
        RunResults merged;
        try
        {
            var inputs = sources.Select(Source).ToList();
            merged = RunMerge.Merge(inputs, skipped.Select(RunMerge.ParseSkipped).ToList(), DateTimeOffset.UtcNow, CommandLineText.Join("ipcbench", args));
        }
        catch (Exception e) when (e is ResultsFormatException or ArgumentException)
        {
            Console.Error.WriteLine($"ipcbench merge: error: {e.Message}");
            return ExitCodes.Usage;
        }
        Console.WriteLine(Write(merged, RunFolder.Root(into)));
        return ExitCodes.Success;
    }

    /// <summary>A merged run as a run folder of its own under <paramref name="root"/>, reports and all: the folder.</summary>
    public static string Write(RunResults merged, string root)
    {
        string folder = RunFolder.Create(root, merged.Id);
        ReportWriter.WriteAll(folder, merged);
        return folder;
    }

    /// <summary>"docker-bridge=DIR" or "DIR". A path holding '=' is taken whole when it exists.</summary>
    private static MergeSource Source(string text)
    {
        int equals = text.IndexOf('=');
        if (equals <= 0 || Directory.Exists(text) || File.Exists(text))
        {
            return new MergeSource(ResultsFile.Read(text), null);
        }
        return new MergeSource(ResultsFile.Read(text[(equals + 1)..]), text[..equals]);
    }
}
