using System.CommandLine;
using IpcBench.Contract;
using IpcBench.Transports;

namespace IpcBench.Cli.Parsing;

/// <summary><c>--transport NAME</c>: required, completed from the registry (named as serve's, <see cref="Harness.Hosting.ServeRequest"/>).</summary>
internal static class TransportArgument
{
    public static Option<string> Create()
    {
        var option = new Option<string>(Harness.Hosting.ServeRequest.TransportOption) { Description = "the transport (see 'ipcbench list')", HelpName = "NAME", Required = true };
        option.CompletionSources.Add([.. TransportRegistry.Names]);
        return option;
    }

    public static ITransport Resolve(string name)
    {
        if (RetiredTransport.Find(name) is { } retired)
        {
            throw new UnsupportedException($"{retired.Name} is {retired.Explanation}");
        }
        try
        {
            return TransportRegistry.Get(name);
        }
        catch (ArgumentException e)
        {
            throw new UsageException(e.Message);
        }
    }
}
