using IpcBench.Core.Hosting;
using IpcBench.Core.Measurement;
using IpcBench.Core.Options;
namespace IpcBench.Reporting;

/// <summary>What a case measured.</summary>
public enum CaseKind
{
    /// <summary>One client's round trips on one connection, one at a time: the latency matrix.</summary>
    Steady,
    /// <summary>A new connection per request (scenario=connect).</summary>
    ColdStart,
    /// <summary>Several clients or requests in flight, an open loop, or the suite's throughput scenario.</summary>
    UnderLoad,
}

/// <summary>
/// A case's address options ("io=sync&amp;wait=spin"), in one spelling: keys sorted, so that runs
/// that wrote them in another order still match case for case.
/// </summary>
public static class CaseOptions
{
    public static string Normalize(string? query) => Join(Parse(query));

    /// <summary>The cold-start scenario: each request on a new connection. Steady state, the default, is not named.</summary>
    public const string ConnectScenario = "scenario=connect";

    /// <summary>The scenario of one connection's (or many's) round trips, the default: a case does not name it.</summary>
    public const string Steady = "steady";

    /// <summary>
    /// A case's options, as ping and the suite both name it: the transport's own (<c>OptionValues.Identity</c>), then
    /// what else sets the case apart: the scenario unless steady ("scenario=connect", "scenario=throughput"), the
    /// isolation ("isolation=netns") and the load (<see cref="Load"/>).
    /// </summary>
    public static string ForCase(string transportOptions, string scenario, string? isolation, string? load = null) =>
        Normalize($"{transportOptions}&{(scenario == Steady ? "" : "scenario=" + scenario)}&{isolation}&{load}");

    /// <summary>
    /// The load a case ran under, as case options: "clients=4&amp;rate=20000" ("" for one client, one request in flight, a
    /// closed loop, the request's size back: the cases every earlier run holds, which keep their names).
    /// </summary>
    public static string Load(LoopOptions loop, int clientProcesses = 1, int? replySize = null) => Join(new Dictionary<string, string?>
    {
        ["clients"] = loop.Clients > 1 ? Invariant(loop.Clients) : null,
        ["client_processes"] = clientProcesses > 1 ? Invariant(clientProcesses) : null,
        ["in_flight"] = loop.InFlight > 1 ? Invariant(loop.InFlight) : null,
        ["rate"] = loop.Rate > 0 ? Invariant(loop.Rate) : null,
        ["reply_size"] = replySize is int r && r != loop.Size ? Invariant(r) : null,
    }.Where(kv => kv.Value is not null).Select(kv => new KeyValuePair<string, string>(kv.Key, kv.Value!)));

    /// <summary>A number a case's options hold (clients, rate ...), or <paramref name="fallback"/> when they do not name it.</summary>
    public static double Number(string options, string key, double fallback) =>
        Parse(options).FirstOrDefault(kv => kv.Key == key).Value is { } text
        && double.TryParse(text, System.Globalization.NumberStyles.Float, System.Globalization.CultureInfo.InvariantCulture, out double n) ? n : fallback;

    private static string Invariant(double n) => n.ToString(System.Globalization.CultureInfo.InvariantCulture);

    /// <summary>The isolation a case names ("netns", "docker-bridge"), or null for a server run beside its client.</summary>
    public static string? Isolation(string options) => Parse(options).FirstOrDefault(kv => kv.Key == Isolations.OptionName).Value;

    /// <summary>The options that put a case under load: several clients or requests in flight, an offered rate.</summary>
    private static readonly string[] LoadKeys = ["clients", "client_processes", "in_flight", "rate"];

    /// <summary>What a case measured, which the reports keep apart: figures of different kinds do not share a table.</summary>
    public static CaseKind Kind(string options)
    {
        var pairs = Parse(options);
        return pairs.Contains(new("scenario", "connect")) ? CaseKind.ColdStart
            : pairs.Any(kv => LoadKeys.Contains(kv.Key) || kv is { Key: "scenario", Value: "throughput" }) ? CaseKind.UnderLoad
            : CaseKind.Steady;
    }

    public static IReadOnlyList<KeyValuePair<string, string>> Parse(string? query)
    {
        if (string.IsNullOrWhiteSpace(query))
        {
            return [];
        }
        return query.TrimStart('?')
            .Split('&', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)
            .Select(pair => pair.Split('=', 2))
            .Select(kv => new KeyValuePair<string, string>(kv[0].ToLowerInvariant(), kv.Length > 1 ? kv[1] : ""))
            .DistinctBy(kv => kv.Key)
            .OrderBy(kv => kv.Key, StringComparer.Ordinal)
            .ToList();
    }

    /// <summary>The options every one of <paramref name="optionSets"/> has, with the same value.</summary>
    public static string Common(IEnumerable<string> optionSets)
    {
        IEnumerable<KeyValuePair<string, string>>? common = null;
        foreach (string options in optionSets)
        {
            var pairs = Parse(options);
            common = common is null ? pairs : common.Intersect(pairs).ToList();
        }
        return Join(common ?? []);
    }

    /// <summary><paramref name="options"/> less those in <paramref name="common"/>.</summary>
    public static string Without(string options, string common) => Join(Parse(options).Except(Parse(common)));

    /// <summary>How a table names a case: the transport and the options that set it apart ("mmf wait=spin").</summary>
    public static string Label(string transport, string options, string common)
    {
        string rest = Without(options, common);
        return rest.Length == 0 ? transport : $"{transport} {rest.Replace('&', ' ')}";
    }

    public static string Join(IEnumerable<KeyValuePair<string, string>> pairs) =>
        string.Join("&", pairs.OrderBy(kv => kv.Key, StringComparer.Ordinal).Select(kv => $"{kv.Key}={kv.Value}"));
}
