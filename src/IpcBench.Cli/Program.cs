using IpcBench.Cli;
using IpcBench.Cli.Commands;
using IpcBench.Core;
using IpcBench.Core.Measurement;

const string usage = """
    ipcbench: how fast can two processes talk here?

    Usage: ipcbench <command> [options]

    Commands:
      list    every transport, whether it runs here, what it guarantees
      serve   run an echo server (prints READY <uri> when it accepts)
      ping    measure request/reply latency and throughput against a server
      report  write a run folder's summaries and charts again from its results.json
      compare compare two runs case by case; exit 1 if a case got slower

    'ipcbench <command> --help' shows a command's options.
    The full benchmark suite: dotnet run -c Release --project benchmarks/IpcBench.Benchmarks -- --filter '*'
    """;

if (args.Length == 0 || args[0] is "-h" or "--help" or "help")
{
    Console.WriteLine(usage);
    return args.Length == 0 ? 2 : 0;
}

string verb = args[0];
var rest = args.Skip(1).ToArray();
(string help, Func<Task<int>> run)? command = verb switch
{
    "list" => (ListCommand.Help, () => Task.FromResult(ListCommand.Run(rest))),
    "serve" => (ServeCommand.Help, () => ServeCommand.RunAsync(rest)),
    "ping" => (PingCommand.Help, () => PingCommand.RunAsync(rest, CancellationToken.None)),
    "report" => (ReportCommand.Help, () => Task.FromResult(ReportCommand.Run(rest))),
    "compare" => (CompareCommand.Help, () => Task.FromResult(CompareCommand.Run(rest))),
    _ => null,
};
if (command is not { } c)
{
    Console.Error.WriteLine($"ipcbench: unknown command '{verb}'; try 'ipcbench --help'");
    return 2;
}
if (rest.Any(a => a is "-h" or "--help"))
{
    Console.WriteLine(c.help);
    return 0;
}

try
{
    return await c.run();
}
catch (UsageException e)
{
    Console.Error.WriteLine($"ipcbench {verb}: {e.Message} (see 'ipcbench {verb} --help')");
    return 2;
}
catch (UnsupportedException e)
{
    Console.Error.WriteLine($"ipcbench {verb}: {e.Message}");
    return 3;
}
catch (Exception e) when (e is TransportException or ReplyMismatchException or ArgumentException or IOException or PlatformNotSupportedException or InvalidOperationException)
{
    Console.Error.WriteLine($"ipcbench {verb}: error: {e.Message}");
    return 1;
}
