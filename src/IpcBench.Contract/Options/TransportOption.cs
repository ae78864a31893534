namespace IpcBench.Contract.Options;

/// <summary>Whom an option shapes, which decides where it travels and whether it names a case.</summary>
public enum OptionScope
{
    /// <summary>Both ends (io, wait): the server is started with it too, and it is part of a case's identity.</summary>
    BothEnds,

    /// <summary>The client only (wcf's connection_buffer): part of a case's identity.</summary>
    Client,

    /// <summary>A bound on the client's waits (timeout): changes no figure, so it is no part of a case's identity.</summary>
    Limit,

    /// <summary>
    /// Where the server is found, not how the exchange goes (amqp's queue): written by the server into the address it
    /// reports, or given to a server to use; no part of a case's identity.
    /// </summary>
    Address,
}

/// <summary>
/// One option a transport takes in its address's query string (<c>tcp://127.0.0.1:5000?io=async</c>), declared once
/// as data by the transport. The CLI (<c>--option NAME=VALUE</c> and the shorthands), the suite's entries
/// ("mmf?wait=spin"), <c>ipcbench list</c>, <c>--help</c>, the conformance variants and the reports all learn it from
/// here; the transport reads its value through <see cref="OptionValues"/>.
/// </summary>
public sealed record TransportOption
{
    private TransportOption(string name, string help, string @default, OptionScope scope, string placeholder)
    {
        Name = name;
        Help = help;
        Default = @default;
        Scope = scope;
        Placeholder = placeholder;
    }

    public string Name { get; }

    /// <summary>One line: what it changes.</summary>
    public string Help { get; }

    public string Default { get; }

    public OptionScope Scope { get; }

    /// <summary>How help shows a value: "sync|async", "DURATION", "BYTES".</summary>
    public string Placeholder { get; }

    /// <summary>The values allowed, or empty when <see cref="Check"/> decides.</summary>
    public IReadOnlyList<string> Values { get; private init; } = [];

    /// <summary>For a value outside a fixed list: null when it is valid, else what a valid one looks like.</summary>
    private Func<string, string?>? Check { get; init; }

    /// <summary>The values worth measuring side by side: the conformance suite runs each, and each is a variant of the transport.</summary>
    public IReadOnlyList<string> Compared { get; init; } = [];

    /// <summary>The CLI offers <c>--NAME VALUE</c> for it and the suite <c>IPCBENCH_NAME</c>, besides <c>--option NAME=VALUE</c>.</summary>
    public bool Shorthand { get; init; }

    /// <summary>A case names it even at its default (<c>io=sync</c>), so that runs of either value never match by accident.</summary>
    public bool AlwaysNamed { get; init; }

    /// <summary>Advice printed when client and server share one CPU, by value ("spin": spinning on one CPU takes turns).</summary>
    public IReadOnlyDictionary<string, string> SameCoreAdvice { get; init; } = new Dictionary<string, string>();

    public static TransportOption Choice(string name, string help, string @default, OptionScope scope, params string[] values) =>
        new(name, help, @default, scope, string.Join('|', values)) { Values = values };

    public static TransportOption Duration(string name, string help, string @default, OptionScope scope) =>
        new(name, help, @default, scope, "DURATION")
        {
            Check = value => Quantities.TryParseDuration(value, out _) ? null : "a positive duration such as 500ms, 2s or 10m",
        };

    public static TransportOption Number(string name, string help, string @default, OptionScope scope, int min, int max) =>
        new(name, help, @default, scope, "N")
        {
            Check = value => int.TryParse(value, System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out int n)
                && n >= min && n <= max ? null : $"a whole number from {min} to {max}",
        };

    /// <summary>Set by the server; any value is taken as it is.</summary>
    public static TransportOption Text(string name, string help, OptionScope scope) => new(name, help, "", scope, "TEXT");

    /// <summary>Null when <paramref name="value"/> is valid; else a sentence naming the option, what it takes and what it got.</summary>
    public string? Problem(string value)
    {
        string? expected = Values.Count > 0
            ? Values.Contains(value, StringComparer.Ordinal) ? null : string.Join(", ", Values.SkipLast(1)) + " or " + Values[^1]
            : Check?.Invoke(value);
        return expected is null ? null : $"{Name} must be {expected}, not '{value}'";
    }
}
