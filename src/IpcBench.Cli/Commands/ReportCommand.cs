using IpcBench.Reporting;

namespace IpcBench.Cli.Commands;

/// <summary><c>ipcbench report DIR</c>: the reports of a run folder, made again from its results.json.</summary>
internal static class ReportCommand
{
    public const string Help = """
        Usage: ipcbench report DIR

        Writes summary.md, summary.csv, env.md, latency-by-size.svg and percentiles.svg in the run
        folder DIR again, from its results.json (as 'ipcbench ping' and the benchmark suite write
        it): after a newer ipcbench changed how reports look, or for a results.json from elsewhere.
        DIR may also name a results.json file; the reports go beside it. Prints the files written.

          DIR   a run folder such as results/20261122-005250-bench, or a results.json

        Exit codes: 0 written; 2 no DIR, or DIR has no results.json, or it is malformed or of a
        schema version this ipcbench does not read.
        """;

    public static int Run(IReadOnlyList<string> args)
    {
        var (operands, options) = Operands.Split(args, []);
        Arguments.Parse(options, [], []);
        Operands.Expect(operands, "DIR");
        string path = operands[0];
        RunResults run;
        try
        {
            run = ResultsFile.Read(path);
        }
        catch (ResultsFormatException e)
        {
            Console.Error.WriteLine($"ipcbench report: error: {e.Message}");
            return 2;
        }
        string folder = Directory.Exists(path) ? path : Path.GetDirectoryName(Path.GetFullPath(path))!;
        foreach (string written in ReportWriter.WriteReports(folder, run))
        {
            Console.WriteLine(written);
        }
        return 0;
    }
}
