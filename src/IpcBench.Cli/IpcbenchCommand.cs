using System.CommandLine;
using IpcBench.Cli.Commands;
using IpcBench.Contract;
using IpcBench.Harness;
using IpcBench.Harness.Measurement;
using IpcBench.Kit.Files;

namespace IpcBench.Cli;

/// <summary>
/// The <c>ipcbench</c> command line: one small command class per verb, parsed by System.CommandLine. A parse error
/// or a <see cref="UsageException"/> is one line on stderr and exit 2, a failure one line and exit 1; a stack trace
/// only with --verbose. See <see cref="ExitCodes"/>.
/// </summary>
public static class IpcbenchCommand
{
    /// <summary>Every verb takes it: an error's stack trace after its one line, for a bug report.</summary>
    private static readonly Option<bool> Verbose = new("--verbose") { Description = "on an error, print its stack trace too", Recursive = true };

    public static RootCommand Create()
    {
        var root = new RootCommand("ipcbench: how fast can two processes talk here?\n\n"
            + "The full benchmark suite: dotnet run -c Release --project benchmarks/IpcBench.Benchmarks -- --filter '*'")
        {
            ListCommand.Create(),
            ServeCommand.Create(),
            PingCommand.Create(),
            PlanCommand.Create(),
            ReportCommand.Create(),
            CompareCommand.Create(),
            MergeCommand.Create(),
            IsolationsCommand.Create(),
            VmCommand.Create(),
            HistoryCommand.Create(),
            KeepCommand.Create(),
            GateCommand.Create(),
            ClientProcessCommands.Worker(),
            ClientProcessCommands.FirstReply(),
        };
        root.Options.Add(Verbose);
        // No verb: the usage, and exit 2 (a script that forgot its verb must not pass).
        root.SetAction(async (_, _) =>
        {
            await root.Parse("--help").InvokeAsync();
            return ExitCodes.Usage;
        });
        return root;
    }

    public static async Task<int> RunAsync(string[] args)
    {
        Secrets.RedactConsole();
        var root = Create();
        var parsed = root.Parse(args);
        string verb = parsed.CommandResult.Command == root ? "ipcbench" : $"ipcbench {parsed.CommandResult.Command.Name}";
        if (parsed.Errors.Count > 0)
        {
            Console.Error.WriteLine($"{verb}: {parsed.Errors[0].Message} (see '{verb} --help')");
            return ExitCodes.Usage;
        }
        try
        {
            return await parsed.InvokeAsync(new InvocationConfiguration
            {
                EnableDefaultExceptionHandler = false,
                ProcessTerminationTimeout = Verb.TeardownOf(parsed.CommandResult.Command),
            });
        }
        catch (Exception e)
        {
            return Report(e, verb, parsed.GetValue(Verbose));
        }
    }

    /// <summary>An error as one line on stderr (where it came from too, with --verbose), and the exit code it means.</summary>
    private static int Report(Exception e, string verb, bool verbose)
    {
        var (line, exit, traced) = e switch
        {
            UsageException => ($"{e.Message} (see '{verb} --help')", ExitCodes.Usage, false),
            UnusableAddressException => (e.Message, ExitCodes.Usage, false),
            UnsupportedException => (e.Message, ExitCodes.Unsupported, false),
            // System.CommandLine cancels the action's token on SIGINT and SIGTERM; what it started is disposed by now.
            OperationCanceledException => ("interrupted; nothing was written", ExitCodes.Interrupted, false),
            TransportException or ReplyMismatchException or TimeoutException or ArgumentException or IOException or UnauthorizedAccessException
                or PlatformNotSupportedException or InvalidOperationException => ($"error: {e.Message}", ExitCodes.Failed, true),
            // A failure IpcBench did not foresee: still one line, and the stack trace on request.
            _ => ($"unexpected error: {e.GetType().Name}: {e.Message.ReplaceLineEndings(" ")}"
                + (verbose ? "" : " (--verbose prints where; please report it)"), ExitCodes.Failed, true),
        };
        Console.Error.WriteLine($"{verb}: {line}");
        if (traced && verbose)
        {
            Console.Error.WriteLine(e);
        }
        return exit;
    }
}
