using System.CommandLine;
using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Transports;

namespace IpcBench.Cli.Parsing;

/// <summary>
/// A transport's options on the command line: <c>--option NAME=VALUE</c> (repeatable) for any option a transport
/// declares, and <c>--NAME VALUE</c> for the ones declared as shorthands (<c>--io</c>, <c>--wait</c>, <c>--timeout</c>).
/// Names and help come from the declarations in the registry; checking them is <see cref="OptionValues"/>'s.
/// </summary>
internal sealed class TransportOptionFlags
{
    private readonly Option<string[]> _option = new("--option")
    {
        Description = "a transport's option, NAME=VALUE; repeat it for more ('ipcbench list' shows each transport's)",
        HelpName = "NAME=VALUE",
        Arity = ArgumentArity.ZeroOrMore,
        DefaultValueFactory = _ => [],
    };

    private readonly IReadOnlyList<(TransportOption Declared, Option<string?> Flag)> _shorthands;

    /// <param name="scopes">The scopes that mean something to the command (serve: not the client's limits).</param>
    public TransportOptionFlags(params OptionScope[] scopes)
    {
        _shorthands = [.. TransportRegistry.Shorthands.Where(o => scopes.Contains(o.Scope)).Select(o => (o, Shorthand(o)))];
    }

    private static Option<string?> Shorthand(TransportOption declared)
    {
        var takers = TransportRegistry.All.Where(t => t.Takes(declared)).Select(t => t.Name).ToList();
        string who = takers.Count == TransportRegistry.All.Count ? "every transport" : string.Join(", ", takers);
        var flag = new Option<string?>("--" + declared.Name.Replace('_', '-'))
        {
            Description = $"{who}: {declared.Help} (default {declared.Default}); short for --option {declared.Name}=VALUE",
            HelpName = declared.Placeholder,
        };
        flag.CompletionSources.Add([.. declared.Values]);
        return flag;
    }

    public void AddTo(Command command)
    {
        command.Options.Add(_option);
        foreach (var (_, flag) in _shorthands)
        {
            command.Options.Add(flag);
        }
    }

    /// <summary>The options given, checked against what <paramref name="transport"/> takes; a mistake is a <see cref="UsageException"/>.</summary>
    public OptionValues Parse(ParseResult parsed, ITransport transport, Uri? address = null)
    {
        var given = address is null ? new Dictionary<string, string>(StringComparer.Ordinal) : AddressQuery.Of(address);
        foreach (string pair in parsed.GetValue(_option) ?? [])
        {
            int eq = pair.IndexOf('=', StringComparison.Ordinal);
            if (eq <= 0)
            {
                throw new UsageException($"--option takes NAME=VALUE, not '{pair}'");
            }
            Add(given, pair[..eq].Trim().ToLowerInvariant(), pair[(eq + 1)..].Trim());
        }
        foreach (var (declared, flag) in _shorthands)
        {
            if (parsed.GetValue(flag) is { } value)
            {
                Add(given, declared.Name, value);
            }
        }
        try
        {
            return OptionValues.Parse(given, transport);
        }
        catch (ArgumentException e)
        {
            throw new UsageException(e.Message);
        }
    }

    private static void Add(Dictionary<string, string> given, string name, string value)
    {
        if (!given.TryAdd(name, value) && given[name] != value)
        {
            throw new UsageException($"{name} is given twice ('{given[name]}' and '{value}')");
        }
    }
}
