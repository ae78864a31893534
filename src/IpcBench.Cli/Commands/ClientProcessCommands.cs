using System.CommandLine;
using System.Text.Json;
using IpcBench.Cli.Parsing;
using IpcBench.Contract.Options;
using IpcBench.Harness;
using IpcBench.Harness.Running;

namespace IpcBench.Cli.Commands;

/// <summary>
/// The hidden verbs of the client processes a case starts: <c>worker</c> (one of <c>--client-processes</c>, or the client
/// of another runtime's build) and <c>first-reply</c> (a start-scenario client). Each is handed its spec as the first line
/// on stdin, never in its arguments (the server's address may hold a password), and runs it through the harness.
/// </summary>
internal static class ClientProcessCommands
{
    public static Command Worker()
    {
        var transport = TransportArgument.Create();
        var output = new Option<string>("--output") { Description = "where the result goes: FILE.json", Required = true, HelpName = "FILE" };
        var command = new Command(ClientProcessScenario.Verb, "a client process of 'ping --client-processes': its spec on stdin, READY, 'go', its result to FILE.json")
        {
            Hidden = true,
        };
        command.Options.Add(transport);
        command.Options.Add(output);
        command.SetAction(async (parsed, ct) =>
        {
            var (t, spec) = Handed(parsed.GetValue(transport)!);
            await ClientProcessScenario.RunWorkerAsync(t, spec, parsed.GetValue(output)!, ct);
            return ExitCodes.Success;
        });
        return command;
    }

    public static Command FirstReply()
    {
        var transport = TransportArgument.Create();
        var command = new Command(StartScenario.Verb, "a start-scenario client: its spec on stdin; connect, one checked request, print REPLIED and the moment")
        {
            Hidden = true,
        };
        command.Options.Add(transport);
        command.SetAction(async (parsed, ct) =>
        {
            var (t, spec) = Handed(parsed.GetValue(transport)!);
            if (ClientRuntime.Refuses(t) is { } notHere)
            {
                throw new UnsupportedException($"{t.Name} does not run here: {notHere}");
            }
            Console.Out.WriteLine(await StartScenario.FirstReplyAsync(t, spec, ct));
            return ExitCodes.Success;
        });
        return command;
    }

    /// <summary>The spec on stdin's first line, for <paramref name="name"/>, its server's address with the client's options.</summary>
    private static (Contract.ITransport Transport, CaseSpec Spec) Handed(string name)
    {
        var transport = TransportArgument.Resolve(name);
        CaseSpec spec;
        try
        {
            spec = CaseSpec.FromJson(Console.In.ReadLine() ?? throw new UsageException("no case spec on stdin"));
        }
        catch (JsonException e)
        {
            throw new UsageException($"the case spec on stdin is not one: {e.Message}");
        }
        var server = spec.Server ?? throw new UsageException("the case spec names no server");
        return (transport, spec with { Server = AddressQuery.With(server, spec.OptionValues(transport).Given(OptionScope.BothEnds, OptionScope.Client, OptionScope.Limit)) });
    }
}
