using System.Globalization;
using IpcBench.Harness.Hosting;
using IpcBench.Harness.Measurement;

namespace IpcBench.Harness.Results;

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
/// What sets one measured case apart from every other: the key that ping and the suite make for a case, that
/// <c>compare</c> matches runs by, and that the reports group and label by. results.json spells it as four fields of
/// a case (transport, options, size, placement); <see cref="Options"/> and <see cref="Parse"/> are the one place that
/// spelling is written and read back.
/// </summary>
public sealed record CaseKey
{
    public const string Steady = "steady";

    /// <summary>Each request on a new connection: connect + request + close timed as one.</summary>
    public const string Connect = "connect";

    /// <summary>Each request from a new client process: its start, connect and request timed as one.</summary>
    public const string Start = "start";

    /// <summary>The suite's clients with their requests back to back, timed by BenchmarkDotNet.</summary>
    public const string Throughput = "throughput";

    public required string Transport { get; init; }

    /// <summary>The transport's own options that shape what is measured ("io=sync&amp;wait=spin"; <see cref="Contract.Options.OptionValues.Identity"/>).</summary>
    public string TransportOptions { get; init; } = "";

    /// <summary>The request's payload in bytes.</summary>
    public required int Size { get; init; }

    /// <summary>The reply's payload in bytes when it is not the request's (an echo).</summary>
    public int? ReplySize { get; init; }

    /// <summary><see cref="Steady"/>, <see cref="Connect"/>, <see cref="Start"/> or <see cref="Throughput"/>.</summary>
    public string Scenario { get; init; } = Steady;

    public int Clients { get; init; } = 1;

    public int ClientProcesses { get; init; } = 1;

    public int InFlight { get; init; } = 1;

    /// <summary>An open loop's offered requests per second over every client; 0 for a closed loop.</summary>
    public double Rate { get; init; }

    /// <summary>"none", "same-core" or "cross-core".</summary>
    public required string Placement { get; init; }

    /// <summary>Where the server ran, apart from its client ("netns", "docker-bridge"); null beside it.</summary>
    public string? Isolation { get; init; }

    /// <summary>The client's runtime when not a JIT build ("r2r", "aot"; <see cref="Harness.ClientRuntime"/>); null for JIT.</summary>
    public string? Runtime { get; init; }

    /// <summary>A case of one transport's loop, as ping and the suite's benchmarks run it.</summary>
    public static CaseKey ForLoop(string transport, string transportOptions, LoopOptions loop, string scenario, string placement,
        Harness.Hosting.Isolation isolation, int clientProcesses = 1, string runtime = Harness.ClientRuntime.Jit) => new()
    {
        Runtime = runtime == Harness.ClientRuntime.Jit ? null : runtime,
        Transport = transport,
        TransportOptions = CaseOptions.Normalize(transportOptions),
        Size = loop.Size,
        ReplySize = loop.ReplySize is int reply && reply != loop.Size ? reply : null,
        Scenario = scenario,
        Clients = loop.Clients,
        ClientProcesses = clientProcesses,
        InFlight = loop.InFlight,
        Rate = loop.Rate,
        Placement = placement,
        Isolation = isolation == Harness.Hosting.Isolation.None ? null : isolation.Name(),
    };

    /// <summary>What the case measured, which the reports keep apart: figures of different kinds do not share a table.</summary>
    public CaseKind Kind =>
        Scenario is Connect or Start ? CaseKind.ColdStart
        : Scenario == Throughput || Clients > 1 || ClientProcesses > 1 || InFlight > 1 || Rate > 0 ? CaseKind.UnderLoad
        : CaseKind.Steady;

    /// <summary>
    /// The case's options as results.json holds them, keys sorted: the transport's own, then what else the case is not
    /// by default (the scenario unless steady, the load, a reply size of its own, the isolation). One client, one
    /// request in flight, a closed loop and an echo are not named, so that every earlier run's cases keep their names.
    /// </summary>
    public string Options => CaseOptions.Join(CaseOptions.Parse(TransportOptions).Concat(Named()));

    private IEnumerable<KeyValuePair<string, string>> Named()
    {
        if (Scenario != Steady) yield return new(ScenarioKey, Scenario);
        if (Clients > 1) yield return new(ClientsKey, Invariant(Clients));
        if (ClientProcesses > 1) yield return new(ClientProcessesKey, Invariant(ClientProcesses));
        if (InFlight > 1) yield return new(InFlightKey, Invariant(InFlight));
        if (Rate > 0) yield return new(RateKey, Invariant(Rate));
        if (ReplySize is int reply) yield return new(ReplySizeKey, Invariant(reply));
        if (Isolation is not null) yield return new(Isolations.OptionName, Isolation);
        if (Runtime is not null) yield return new(RuntimeKey, Runtime);
    }

    /// <summary>
    /// A key from results.json's spelling. A value is read into its field only when the key would spell that field so
    /// ("clients=4", not "clients=1" or "clients=many"); any other stays among the transport's options, so that
    /// <see cref="Options"/> gives back what the file holds and no two of its cases become one.
    /// </summary>
    public static CaseKey Parse(string transport, string options, int size, string placement)
    {
        var pairs = CaseOptions.Parse(options).ToDictionary();
        T? Take<T>(string key, Func<T, bool> named) where T : struct, ISpanParsable<T>, IFormattable =>
            pairs.TryGetValue(key, out string? text) && T.TryParse(text, CultureInfo.InvariantCulture, out T value) && named(value)
            && value.ToString(null, CultureInfo.InvariantCulture) == text && pairs.Remove(key) ? value : null;
        string? TakeText(string key, string unnamed = "") =>
            pairs.TryGetValue(key, out string? text) && text != unnamed && text.Length > 0 && pairs.Remove(key) ? text : null;
        var key = new CaseKey
        {
            Transport = transport,
            Size = size,
            Placement = placement,
            Scenario = TakeText(ScenarioKey, unnamed: Steady) ?? Steady,
            Clients = Take<int>(ClientsKey, n => n > 1) ?? 1,
            ClientProcesses = Take<int>(ClientProcessesKey, n => n > 1) ?? 1,
            InFlight = Take<int>(InFlightKey, n => n > 1) ?? 1,
            Rate = Take<double>(RateKey, r => r > 0) ?? 0,
            ReplySize = Take<int>(ReplySizeKey, n => n >= 0 && n != size),
            Isolation = TakeText(Isolations.OptionName),
            Runtime = TakeText(RuntimeKey, unnamed: Harness.ClientRuntime.Jit),
        };
        return key with { TransportOptions = CaseOptions.Join(pairs) };
    }

    private const string ScenarioKey = "scenario", ClientsKey = "clients", ClientProcessesKey = "client_processes", InFlightKey = "in_flight",
        RateKey = "rate", ReplySizeKey = "reply_size", RuntimeKey = "runtime";

    private static string Invariant(double n) => n.ToString(CultureInfo.InvariantCulture);
}
