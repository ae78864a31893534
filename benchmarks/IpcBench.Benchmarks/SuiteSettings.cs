using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Harness;
using IpcBench.Harness.Hosting;
using IpcBench.Harness.Running;
using IpcBench.Transports;

namespace IpcBench.Benchmarks;

/// <summary>
/// The suite's knobs, read from environment variables so that BenchmarkDotNet's own command line
/// stays untouched, and so that its child processes (which inherit the environment) see the same.
/// </summary>
public static class SuiteSettings
{
    public const string TransportsVariable = "IPCBENCH_TRANSPORTS";
    public const string SizesVariable = "IPCBENCH_SIZES";
    public const string PlacementVariable = "IPCBENCH_PLACEMENT";
    public const string LatencyDirVariable = "IPCBENCH_LATENCY_DIR";
    public const string IsolationVariable = "IPCBENCH_ISOLATION";
    public const string RuntimeVariable = "IPCBENCH_RUNTIME";

    /// <summary>
    /// The longest a case's own warm-up sends its first requests for, before it waits until the JIT is done (WarmUp): without
    /// it a case whose request takes a second (wcf at 100 KB with NetTcp's 8 KB buffer) spent minutes there.
    /// BenchmarkDotNet's warm-up iterations follow anyway.
    /// </summary>
    public static readonly TimeSpan WarmupLimit = TimeSpan.FromSeconds(1);

    /// <summary>
    /// A case's warm-up: <paramref name="steps"/> of <paramref name="step"/> (within <see cref="WarmupLimit"/>), then on
    /// until the JIT is done, the client's and the server's (<see cref="Harness.Measurement.WarmUp"/>). Says in the case's
    /// log how long each part took.
    /// </summary>
    public static async Task WarmUpAsync(int steps, Func<ValueTask> step, Func<ValueTask<bool>> serverSettled)
    {
        var spent = await Harness.Measurement.WarmUp.RunAsync(steps, WarmupLimit, step, serverSettled);
        Console.WriteLine($"// {(spent is null ? "no warm-up" : spent.ToString())}");
    }

    private static string? Env(string name) => Environment.GetEnvironmentVariable(name) is { Length: > 0 } v ? v : null;

    /// <summary>
    /// The transports asked for, each optionally with address options ("mmf?wait=spin"); default:
    /// every registered one with its defaults.
    /// </summary>
    public static IReadOnlyList<string> RequestedTransports =>
        Env(TransportsVariable) is { } list
            ? list.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)
            : TransportRegistry.Names.ToList();

    /// <summary>The transports that will run: requested and able to run here (in the isolation asked for).</summary>
    public static IEnumerable<string> Transports => RequestedTransports.Where(t => NotHere(t) is null);

    /// <summary>Each entry's verdict, asked once per process: BenchmarkDotNet asks for the cases more than once.</summary>
    private static readonly System.Collections.Concurrent.ConcurrentDictionary<string, string?> Verdicts = new();

    /// <summary>
    /// Why <paramref name="entry"/> cannot run here, in the suite's isolation and on its runtime (the runner's refusals
    /// of its smallest case, as ping's); null when it can.
    /// </summary>
    public static string? NotHere(string entry) => Verdicts.GetOrAdd(entry, _ =>
        CaseRunner.RefusesAsync(Resolve(entry), Spec(entry, new MessageSizes(1, 1)), CancellationToken.None).GetAwaiter().GetResult());

    /// <summary>A suite case as the runner takes it: an entry's transport and options, the suite's placement, isolation and runtime.</summary>
    public static CaseSpec Spec(string entry, MessageSizes sizes, string scenario = CaseKey.Steady, int clients = 1) => new()
    {
        Key = new()
        {
            Transport = Resolve(entry).Name,
            TransportOptions = CaseOptions.Normalize(Options(entry).Identity()),
            Size = sizes.Request,
            ReplySize = sizes.ReplySize,
            Scenario = scenario,
            Clients = clients,
            Placement = Placement.Name(),
            Isolation = Isolation == Isolation.None ? null : Isolation.Name(),
            Runtime = Runtime == ClientRuntime.Jit ? null : Runtime,
        },
        Options = AddressQuery.Join(Options(entry).Given(OptionScope.BothEnds, OptionScope.Client, OptionScope.Limit)),
    };

    /// <summary>
    /// How the benchmark processes, the measured clients, run (IPCBENCH_RUNTIME): jit (the default), r2r or aot, each
    /// built by its toolchain (<see cref="SuiteToolchains"/>); the servers are always the JIT ipcbench, as with ping --runtime.
    /// </summary>
    public static string Runtime => Env(RuntimeVariable) is not { } name ? ClientRuntime.Jit
        : ClientRuntime.Names.Contains(name) ? name
        : throw new ArgumentException($"{RuntimeVariable} must be {string.Join(", ", ClientRuntime.Names)}, not '{name}'");

    /// <summary>Where each server runs: beside the suite (none, the default), or in namespaces of its own (IPCBENCH_ISOLATION=netns or container), or under gVisor (sandbox).</summary>
    public static Isolation Isolation => Env(IsolationVariable) is not { } name ? Isolation.None
        : Isolations.Parse(name) ?? throw new ArgumentException($"{IsolationVariable} must be {string.Join(", ", Isolations.Names)}, not '{name}'");

    /// <summary>The transport a suite entry names ("mmf?wait=spin" is mmf).</summary>
    public static ITransport Resolve(string entry) => TransportRegistry.Get(entry.Split('?', 2)[0]);

    /// <summary>
    /// An entry's options, checked against what its transport takes: the entry's own ("mmf?wait=spin"), then for each
    /// option declared with a shorthand, the suite's variable of that name if set (IPCBENCH_IO=async, IPCBENCH_WAIT=spin)
    /// and the transport takes it. A mistake is an <see cref="ArgumentException"/> naming the entry.
    /// </summary>
    public static OptionValues Options(string entry)
    {
        var transport = Resolve(entry);
        var given = AddressQuery.Parse(EntryOptions(entry), $"{TransportsVariable} entry '{entry}'");
        foreach (var option in OptionValues.Of(transport).Where(o => o.Shorthand))
        {
            if (Env(VariableFor(option)) is { } value)
            {
                given.TryAdd(option.Name, value);
            }
        }
        return OptionValues.Parse(given, transport, $" in {TransportsVariable} entry '{entry}'");
    }

    /// <summary>The suite's variable for an option with a shorthand: IPCBENCH_IO for io.</summary>
    public static string VariableFor(TransportOption option) => "IPCBENCH_" + option.Name.ToUpperInvariant();

    /// <summary>The shorthand variables of every registered transport's options, with their values (null: not set).</summary>
    public static IEnumerable<(string Variable, string? Value)> OptionVariables =>
        TransportRegistry.Shorthands.Select(o => (VariableFor(o), Env(VariableFor(o))));

    /// <summary>The payloads of the steady benchmark: sizes echoed ("1KB"), or request:reply pairs ("16:64KB").</summary>
    public static IEnumerable<MessageSizes> Sizes =>
        (Env(SizesVariable) ?? "1,1KB,10KB,100KB")
        .Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)
        .Select(s => MessageSizes.Parse(s, Kit.Framing.LengthPrefix.DefaultMaxPayload)
            ?? throw new ArgumentException($"{SizesVariable}: '{s}' is not a size such as 1, 1KB or 100KB, nor a request:reply pair such as 16:64KB"));

    /// <summary>
    /// Where client and server run (IPCBENCH_PLACEMENT), same-core by default: taking turns on one CPU, no round trip waits
    /// for a CPU to wake, so the figures and their ranking hold however the machine idles.
    /// </summary>
    public static Placement Placement => Placements.Parse(Env(PlacementVariable) ?? "same-core");

    public static string? LatencyDirectory => Env(LatencyDirVariable);

    /// <summary>The address options a suite entry carries ("mmf?wait=spin" carries "wait=spin").</summary>
    private static string EntryOptions(string entry) => entry.Contains('?') ? entry.Split('?', 2)[1] : "";
}
