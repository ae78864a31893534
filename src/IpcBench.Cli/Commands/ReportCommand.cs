using System.CommandLine;
using IpcBench.Reporting;
using IpcBench.Reporting.Comparison;
using IpcBench.Reporting.Writers;

namespace IpcBench.Cli.Commands;

/// <summary><c>ipcbench report DIR</c>: the reports of a run folder, made again from its results.json.</summary>
internal static class ReportCommand
{
    public static Command Create()
    {
        var dir = new Argument<string>("DIR") { Description = "a run folder such as results/20261122-005250-bench, or a results.json" };
        var command = new Command("report", """
            Writes summary.md, summary.csv, env.md, latency-by-size.svg and percentiles.svg in the run folder DIR again,
            from its results.json (as 'ipcbench ping' and the benchmark suite write it): after a newer ipcbench changed how
            reports look, or for a results.json from elsewhere. DIR may also name a results.json file; the reports go beside
            it. A folder of rounds ('ipcbench plan --rounds N') gets the reports of its rounds together beside them: each
            case's median round, with its interval over the rounds. Prints the files written.

            Exit codes: 0 written; 2 no DIR, or DIR has no results.json, or it is malformed or of a schema version this
            ipcbench does not read.
            """) { dir };
        command.SetAction(parsed => Run(parsed.GetValue(dir)!));
        return command;
    }

    private static int Run(string path)
    {
        if (!ResultsReading.TryRead("report", () => RunPool.Read(path), out var run))
        {
            return ExitCodes.Usage;
        }
        string folder = Directory.Exists(path) ? path : Path.GetDirectoryName(Path.GetFullPath(path))!;
        foreach (string written in ReportWriter.WriteReports(folder, run))
        {
            Console.WriteLine(written);
        }
        return ExitCodes.Success;
    }
}
