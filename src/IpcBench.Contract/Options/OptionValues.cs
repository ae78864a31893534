using System.Globalization;

namespace IpcBench.Contract.Options;

/// <summary>
/// The options an address carries, checked against what its transport declares (its own options and the
/// <see cref="Common"/> ones): an unknown name or a bad value is an <see cref="ArgumentException"/> saying which,
/// never silently ignored. Parsed once where an address comes in; the transport reads typed values from it.
/// </summary>
public sealed class OptionValues
{
    public static readonly TransportOption Timeout = TransportOption.Duration(
        "timeout", "the longest wait for one reply", "10s", OptionScope.Limit) with { Shorthand = true };

    public static readonly TransportOption ConnectTimeout = TransportOption.Duration(
        "connect_timeout", "the longest wait to connect", "5s", OptionScope.Limit);

    /// <summary>The options every transport takes.</summary>
    public static readonly IReadOnlyList<TransportOption> Common = [Timeout, ConnectTimeout];

    private readonly IReadOnlyDictionary<string, string> _given;

    private OptionValues(ITransport transport, IReadOnlyDictionary<string, string> given)
    {
        Transport = transport;
        _given = given;
    }

    public ITransport Transport { get; }

    /// <summary>Every option <paramref name="transport"/> takes: its own, then the common ones.</summary>
    public static IReadOnlyList<TransportOption> Of(ITransport transport) => [.. transport.Options, .. Common];

    public static OptionValues Parse(Uri address, ITransport transport) =>
        Parse(AddressQuery.Of(address), transport, $" in {address}");

    /// <param name="where">Where the options came from, for the error message (" in tcp://...").</param>
    public static OptionValues Parse(IReadOnlyDictionary<string, string> given, ITransport transport, string where = "")
    {
        var declared = Of(transport);
        foreach (var (name, value) in given)
        {
            var option = declared.FirstOrDefault(o => o.Name == name)
                ?? throw new ArgumentException(
                    $"{transport.Name} has no option '{name}'{where}; its options: {string.Join(", ", declared.Where(o => o.Scope != OptionScope.Address).Select(o => o.Name))} (see 'ipcbench list')");
            if (option.Problem(value) is { } problem)
            {
                throw new ArgumentException(problem + where);
            }
        }
        return new OptionValues(transport, given);
    }

    /// <summary>The option's value: as given, else its default.</summary>
    public string this[TransportOption option] => _given.GetValueOrDefault(option.Name, option.Default);

    public bool IsGiven(TransportOption option) => _given.ContainsKey(option.Name);

    /// <summary>
    /// The value of an address option a client cannot do without (a brokered server's queue or subject, which only its
    /// READY address names), or a refusal that says where it comes from.
    /// </summary>
    public string Required(TransportOption option, Uri address) => this[option] is { Length: > 0 } value ? value
        : throw new ArgumentException($"{AddressQuery.WithoutQuery(address)} names no server {option.Name}: the server's READY address has ?{option.Name}=");

    public TimeSpan Duration(TransportOption option) => Quantities.ParseDuration(option.Name, this[option]);

    public int Number(TransportOption option) => int.Parse(this[option], CultureInfo.InvariantCulture);

    /// <summary>The options given, of the scopes asked for, as name/value pairs.</summary>
    public IEnumerable<KeyValuePair<string, string>> Given(params OptionScope[] scopes) =>
        _given.Where(kv => Of(Transport).FirstOrDefault(o => o.Name == kv.Key) is { } o && scopes.Contains(o.Scope));

    /// <summary>
    /// The options that make a case what it is, keys sorted ("io=sync&amp;wait=spin"): those that shape the exchange,
    /// given or <see cref="TransportOption.AlwaysNamed"/>. Limits (timeouts) are left out: they change no figure,
    /// and would keep a ping run from matching a suite run.
    /// </summary>
    public string Identity()
    {
        var pairs = Of(Transport)
            .Where(o => o.Scope is OptionScope.BothEnds or OptionScope.Client && (o.AlwaysNamed || IsGiven(o)))
            .Select(o => $"{o.Name}={this[o]}")
            .Order(StringComparer.Ordinal);
        return string.Join("&", pairs);
    }
}

/// <summary>What a transport's option declarations imply.</summary>
public static class TransportOptionsExtensions
{
    /// <summary>
    /// The ways of running <paramref name="transport"/> worth comparing, each as address options ("io=async",
    /// "wait=spin"): every <see cref="TransportOption.Compared"/> value of each option. The conformance suite runs every one.
    /// </summary>
    public static IReadOnlyList<string> Variants(this ITransport transport) =>
        [.. transport.Options.SelectMany(o => o.Compared.Select(v => $"{o.Name}={v}"))];

    /// <summary>Whether <paramref name="transport"/> takes <paramref name="option"/>.</summary>
    public static bool Takes(this ITransport transport, TransportOption option) => OptionValues.Of(transport).Contains(option);
}
