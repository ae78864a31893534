using System.CommandLine;
using IpcBench.Cli.Commands;
using IpcBench.Core;
using IpcBench.Core.Measurement;

namespace IpcBench.Cli;

/// <summary>
/// The <c>ipcbench</c> command line: one small command class per verb, parsed by System.CommandLine. A parse error
/// or a <see cref="UsageException"/> is one line on stderr and exit 2, never a stack trace; see <see cref="ExitCodes"/>.
/// </summary>
public static class IpcbenchCommand
{
    public static RootCommand Create()
    {
        var root = new RootCommand("ipcbench: how fast can two processes talk here?\n\n"
            + "The full benchmark suite: dotnet run -c Release --project benchmarks/IpcBench.Benchmarks -- --filter '*'")
        {
            ListCommand.Create(),
            ServeCommand.Create(),
            PingCommand.Create(),
            ReportCommand.Create(),
            CompareCommand.Create(),
            MergeCommand.Create(),
        };
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
            return await parsed.InvokeAsync(new InvocationConfiguration { EnableDefaultExceptionHandler = false });
        }
        catch (UsageException e)
        {
            Console.Error.WriteLine($"{verb}: {e.Message} (see '{verb} --help')");
            return ExitCodes.Usage;
        }
        catch (UnsupportedException e)
        {
            Console.Error.WriteLine($"{verb}: {e.Message}");
            return ExitCodes.Unsupported;
        }
        catch (OperationCanceledException)
        {
            // System.CommandLine cancels the action's token on SIGINT and SIGTERM; what it started is disposed by now.
            Console.Error.WriteLine($"{verb}: interrupted; nothing was written");
            return ExitCodes.Interrupted;
        }
        catch (Exception e) when (e is TransportException or ReplyMismatchException or ArgumentException or IOException
            or PlatformNotSupportedException or InvalidOperationException)
        {
            Console.Error.WriteLine($"{verb}: error: {e.Message}");
            return ExitCodes.Failed;
        }
    }
}
