using System.CommandLine;
using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Harness;
using IpcBench.Harness.Hosting;
using IpcBench.Harness.Running;

namespace IpcBench.Cli.Parsing;

/// <summary><c>ping</c>'s options, and the one place they become a <see cref="CaseSpec"/>.</summary>
internal sealed class PingOptions
{
    public const string ServerVariable = "IPCBENCH_SERVER";

    private readonly Option<string> _transport = TransportArgument.Create();
    private readonly Option<Uri?> _server = Options.Uri("--server", $"an already running server (also {ServerVariable}), e.g. tcp://10.0.0.2:5000");
    private readonly Option<int> _size = Options.Size("--size", "request and reply payload: 1, 1KB, 100KB ... (1KB = 1024 B)", 1, LengthPrefixLimit);
    private readonly Option<int?> _replySize = Options.OptionalSize("--reply-size",
        "the reply's payload, apart from the request's (a small request with a large reply is most RPC); a --server must be started with it too",
        LengthPrefixLimit);
    private readonly Option<int> _count = Options.Int("--count", "measured requests, over every client", 10_000, 1, MaxCount);
    private readonly Option<TimeSpan> _duration = Options.Duration("--duration", "measure for this long instead of --count requests, e.g. 30s");
    private readonly Option<(int Count, TimeSpan Time)> _warmup = Options.CountOrDuration("--warmup",
        "unmeasured requests sent first, or for how long, e.g. 2s (then more until the JIT is done: docs/warm-up.md)", 1_000, MaxCount);
    private readonly Option<int> _clients = Options.Int("--clients", "connections at once, each driven by a thread of its own", 1, 1, 1024);
    private readonly Option<int> _inFlight = Options.Int("--in-flight", "requests outstanding on each connection (transports that pipeline: see 'ipcbench list')", 1, 1, 1024);
    private readonly Option<int> _clientProcesses = Options.Int("--client-processes",
        "spread the clients over this many client processes, started together behind a barrier", 1, 1, 64);
    private readonly Option<double> _rate = Options.Rate("--rate",
        "open loop: requests per second over every client, sent on a fixed schedule and timed from when each was due, so that stalls show");
    private readonly Option<string> _placement = Options.Choice("--placement",
        "same-core: client and server pinned to one CPU, taking turns, so that no round trip waits for a CPU to wake and the "
        + "figures do not move with how the machine idles; cross-core: pinned to two CPUs, each round trip wakes the other one "
        + "twice (env.md gives the cost); none: the OS decides. Default: same-core, but none with --server (its CPU is not ours) "
        + "and cross-core with an option that needs a CPU per side (mmf's wait=spin)",
        "same-core", "none", "same-core", "cross-core");
    private readonly Option<string> _scenario = Options.Choice("--scenario",
        "steady: one connection, timed round trips; connect: each request on a new connection, connect + request + close timed as one; "
        + "start: each request from a new client process, from its start to its reply (default --count 20, --warmup 2)",
        "steady", "steady", CaseKey.Connect, CaseKey.Start);
    private readonly Option<string?> _runtime = Options.Checked<string?>("--runtime",
        "the client's runtime: jit, r2r (ReadyToRun) or aot (NativeAOT), run from that build of ipcbench "
        + "(benchmarks/runtimes.sh publishes them into artifacts/runtimes/, or IPCBENCH_RUNTIMES); the server is this build's. "
        + "Default: this process's own, the client in it",
        string.Join('|', ClientRuntime.Names), null,
        text => (ClientRuntime.Names.Contains(text, StringComparer.OrdinalIgnoreCase), text.ToLowerInvariant()), "jit, r2r or aot", showDefault: false);
    private readonly Option<string> _isolation = Options.Choice("--isolation", Isolations.Help, "none", [.. Isolations.Names]);
    private readonly Option<TimeSpan> _waitForServer = Options.Duration("--wait-for-server",
        "with --server, retry connecting for up to this long, e.g. 60s: a server in another container or pod may still be starting");
    private readonly Option<TimeSpan> _gap = Options.Duration("--gap",
        "pause after each reply, e.g. 1ms: sparse traffic, where waiting costs show in the CPU figures (requests/s then counts the pauses too)");
    private readonly TransportOptionFlags _flags = new(OptionScope.BothEnds, OptionScope.Client, OptionScope.Limit);

    public void AddTo(Command command)
    {
        foreach (Option option in new Option[] { _transport, _server, _size, _replySize, _count, _duration, _warmup, _clients, _clientProcesses,
                     _inFlight, _rate, _runtime, _placement, _scenario, _isolation, _waitForServer, _gap })
        {
            command.Options.Add(option);
        }
        _flags.AddTo(command);
        command.Validators.Add(result =>
        {
            foreach (var (a, b) in new (Option, Option)[] { (_count, _duration), (_rate, _gap) })
            {
                if (result.GetResult(a) is not null && result.GetResult(b) is not null)
                {
                    result.AddError($"{a.Name} and {b.Name} exclude each other");
                }
            }
        });
    }

    /// <summary>The case the options ask for; a mistake in them is a <see cref="UsageException"/>.</summary>
    public (ITransport Transport, CaseSpec Spec) Spec(ParseResult parsed)
    {
        var transport = TransportArgument.Resolve(parsed.GetValue(_transport)!);
        var server = parsed.GetValue(_server) ?? (Environment.GetEnvironmentVariable(ServerVariable) is { Length: > 0 } env
            ? Uri.TryCreate(env, UriKind.Absolute, out var uri) ? uri : throw new UsageException($"{ServerVariable} must be an absolute URI, not '{env}'")
            : null);
        var options = _flags.Parse(parsed, transport, server);
        string scenario = parsed.GetValue(_scenario)!;
        bool start = scenario == CaseKey.Start;
        var (warmup, warmupTime) = parsed.GetValue(_warmup);
        string? build = parsed.GetValue(_runtime);
        var placement = parsed.GetResult(_placement) is { Implicit: false }
            ? Placements.Parse(parsed.GetValue(_placement)!)
            : Placements.DefaultFor(transport, options, serverLocal: server is null);
        int size = parsed.GetValue(_size);
        var spec = new CaseSpec
        {
            Key = new()
            {
                Transport = transport.Name,
                TransportOptions = CaseOptions.Normalize(options.Identity()),
                Size = size,
                ReplySize = parsed.GetValue(_replySize) is int reply && reply != size ? reply : null,
                Scenario = scenario,
                Clients = parsed.GetValue(_clients),
                ClientProcesses = parsed.GetValue(_clientProcesses),
                InFlight = parsed.GetValue(_inFlight),
                Rate = parsed.GetValue(_rate),
                Placement = placement.Name(),
                Isolation = parsed.GetValue(_isolation) is var isolation && isolation != Isolation.None.Name() ? isolation : null,
                Runtime = (build ?? ClientRuntime.Current) is var runtime && runtime != ClientRuntime.Jit ? runtime : null,
            },
            Options = AddressQuery.Join(options.Given(OptionScope.BothEnds, OptionScope.Client, OptionScope.Limit)),
            // A process start takes tens of milliseconds: the start scenario's defaults are a few, not ten thousand.
            Count = start && parsed.GetResult(_count) is null or { Implicit: true } ? 20 : parsed.GetValue(_count),
            Duration = parsed.GetValue(_duration),
            Warmup = start && parsed.GetResult(_warmup) is null or { Implicit: true } ? 2 : warmup,
            WarmupDuration = warmupTime,
            Gap = parsed.GetValue(_gap),
            Server = server,
            WaitForServer = parsed.GetValue(_waitForServer),
            ClientBuild = build,
        };
        return spec.Problem() is { } problem ? throw new UsageException(problem) : (transport, spec);
    }

    /// <summary>The largest size --size accepts; each transport then checks its own maximum.</summary>
    /// <summary>The most requests a case may ask for, measured or warming up.</summary>
    public const int MaxCount = 100_000_000;

    public const int LengthPrefixLimit = Kit.Framing.LengthPrefix.DefaultMaxPayload;
}
