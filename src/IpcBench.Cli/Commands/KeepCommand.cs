using System.CommandLine;
using IpcBench.Reporting;
using IpcBench.Reporting.History;

namespace IpcBench.Cli.Commands;

/// <summary><c>ipcbench keep GATE --into DIR</c>: a gate as the history branch keeps it (benchmarks/keep-gate.sh commits DIR).</summary>
internal static class KeepCommand
{
    public static Command Create()
    {
        var gate = new Argument<string>("GATE") { Description = "a kept gate: the folder benchmarks/ab.sh --keep wrote (A/, B/, verdicts.json)" };
        var into = new Option<string>("--into") { Description = "a new or empty folder for what is kept", HelpName = "DIR", Required = true };
        var command = new Command("keep", """
            Writes what the history keeps of a gate into DIR: each round's results.json without its per-request samples
            (four fifths of its size; the launches' p50s, percentiles and histogram stay, and 'ipcbench history' reads it
            as it reads the gate), verdicts.json and compare.md; logs and reports are left out. Each file is read and
            checked first, so a damaged gate writes nothing. Prints DIR.

            Exit codes: 0 written; 2 not a kept gate (no B/ or verdicts.json, no results.json), a link in it, a damaged
            file, or a DIR that holds something.
            """) { gate, into };
        command.SetAction(parsed => Run(parsed.GetValue(gate)!, parsed.GetValue(into)!));
        return command;
    }

    private static int Run(string gate, string into)
    {
        try
        {
            KeptGate.Write(gate, into);
        }
        catch (Exception e) when (e is ResultsFormatException or ArgumentException)
        {
            Console.Error.WriteLine($"ipcbench keep: error: {e.Message}");
            return ExitCodes.Usage;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            Console.Error.WriteLine($"ipcbench keep: cannot write {into}: {e.Message}");
            return ExitCodes.Usage;
        }
        Console.WriteLine(into);
        return ExitCodes.Success;
    }
}
