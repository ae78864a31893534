using System.CommandLine;
using System.Diagnostics;
using IpcBench.Cli.Parsing;
using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Harness;
using IpcBench.Harness.Hosting;
using IpcBench.Harness.Measurement;
using IpcBench.Kit;
using IpcBench.Kit.Files;
using IpcBench.Reporting;
using IpcBench.Reporting.Collecting;
using IpcBench.Reporting.Writers;

namespace IpcBench.Cli.Commands;

/// <summary><c>ipcbench ping</c>: a closed-loop request/reply measurement against a server it starts or is given.</summary>
internal sealed class PingCommand
{
    public const string ServerVariable = "IPCBENCH_SERVER";

    private readonly Option<string> _transport = TransportArgument.Create();
    private readonly Option<Uri?> _server = Options.Uri("--server", $"an already running server (also {ServerVariable}), e.g. tcp://10.0.0.2:5000");
    private readonly Option<int> _size = Options.Size("--size", "request and reply payload: 1, 1KB, 100KB ... (1KB = 1024 B)", 1, LengthPrefixLimit);
    private readonly Option<int?> _replySize = Options.OptionalSize("--reply-size",
        "the reply's payload, apart from the request's (a small request with a large reply is most RPC); a --server must be started with it too",
        LengthPrefixLimit);
    private readonly Option<int> _count = Options.Int("--count", "measured requests, over every client", 10_000, 1, 100_000_000);
    private readonly Option<TimeSpan> _duration = Options.Duration("--duration", "measure for this long instead of --count requests, e.g. 30s");
    private readonly Option<(int Count, TimeSpan Time)> _warmup = Options.CountOrDuration("--warmup",
        "unmeasured requests sent first, or for how long, e.g. 2s (then more until the JIT is quiet)", 1_000, 100_000_000);
    private readonly Option<int> _clients = Options.Int("--clients", "connections at once, each driven by a thread of its own", 1, 1, 1024);
    private readonly Option<int> _inFlight = Options.Int("--in-flight", "requests outstanding on each connection (transports that pipeline: see 'ipcbench list')", 1, 1, 1024);
    private readonly Option<int> _clientProcesses = Options.Int("--client-processes",
        "spread the clients over this many client processes, started together behind a barrier", 1, 1, 64);
    private readonly Option<string?> _workerOutput = new("--worker-output") { Hidden = true, Description = "run as one of --client-processes: READY, then 'go' on stdin, then the result to FILE.json" };
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
    private readonly Option<bool> _firstReply = new("--first-reply") { Hidden = true, Description = "as a start-scenario client: connect, one checked request, print REPLIED and the moment, exit" };
    private readonly Option<string> _isolation = Options.Choice("--isolation", Isolations.Help, "none", [.. Isolations.Names]);
    private readonly Option<TimeSpan> _waitForServer = Options.Duration("--wait-for-server",
        "with --server, retry connecting for up to this long, e.g. 60s: a server in another container or pod may still be starting");
    private readonly Option<TimeSpan> _gap = Options.Duration("--gap",
        "pause after each reply, e.g. 1ms: sparse traffic, where waiting costs show in the CPU figures (requests/s then counts the pauses too)");
    private readonly Option<string?> _json = new("--json") { Description = "also write the run's results to FILE, in results.json's format (docs/reports.md)", HelpName = "FILE" };
    private readonly Option<string?> _results = new("--results")
    {
        Description = "where the run folder goes (default: IPCBENCH_RESULTS, else results/ at the repository root, else ./results); its path is printed on stderr",
        HelpName = "DIR",
    };
    private readonly Option<bool> _noResults = new("--no-results") { Description = "write no run folder" };
    private readonly TransportOptionFlags _flags = new(OptionScope.BothEnds, OptionScope.Client, OptionScope.Limit);

    public static Command Create()
    {
        var ping = new PingCommand();
        var command = new Command("ping", """
            Sends requests and times every round trip; every reply's length and content are checked. One client with one
            request in flight by default; --clients, --in-flight and --rate (an open loop) put it under load. Without
            --server, starts 'ipcbench serve' as a child process and stops it afterwards. Each run writes a folder
            DIR/<yyyyMMdd-HHmmss>-ping/ with results.json, summary.md, summary.csv, env.md and two SVG charts; see
            'ipcbench report' and 'ipcbench compare'.

            Exit codes: 0 success; 1 the run failed (server unreachable or died, bad reply); 2 bad options; 3 the transport
            or size does not run here; 130 interrupted (SIGINT, SIGTERM).
            """)
        {
            ping._transport, ping._server, ping._size, ping._replySize, ping._count, ping._duration, ping._warmup, ping._clients, ping._clientProcesses, ping._inFlight, ping._rate, ping._workerOutput, ping._firstReply, ping._runtime, ping._placement, ping._scenario, ping._isolation, ping._waitForServer, ping._gap,
            ping._json, ping._results, ping._noResults,
        };
        ping._flags.AddTo(command);
        command.Validators.Add(result =>
        {
            foreach (var (a, b) in new (Option, Option)[] { (ping._results, ping._noResults), (ping._count, ping._duration), (ping._rate, ping._gap) })
            {
                if (result.GetResult(a) is not null && result.GetResult(b) is not null)
                {
                    result.AddError($"{a.Name} and {b.Name} exclude each other");
                }
            }
        });
        command.SetAction((parsed, ct) => parsed.GetValue(ping._firstReply) ? ping.FirstReplyAsync(parsed, ct) : ping.RunAsync(parsed, ct));
        return command;
    }

    private async Task<int> RunAsync(ParseResult parsed, CancellationToken ct)
    {
        var started = DateTimeOffset.UtcNow;
        var transport = TransportArgument.Resolve(parsed.GetValue(_transport)!);
        int size = parsed.GetValue(_size);
        string scenario = parsed.GetValue(_scenario)!;
        bool connectScenario = scenario == CaseKey.Connect;
        var remote = Remote(parsed);
        if (remote is not null && !string.Equals(remote.Scheme, transport.Name, StringComparison.OrdinalIgnoreCase))
        {
            throw new UsageException($"--server {remote} is not a {transport.Name}:// address");
        }
        var options = _flags.Parse(parsed, transport, remote);
        var placement = parsed.GetResult(_placement) is { Implicit: false }
            ? Placements.Parse(parsed.GetValue(_placement)!)
            : DefaultPlacement(transport, options, remote);
        var isolation = Isolations.Parse(parsed.GetValue(_isolation)!)!.Value;
        if (isolation != Isolation.None && remote is not null)
        {
            throw new UsageException("--isolation places the server ping starts; a --server runs where it runs");
        }
        var patience = parsed.GetValue(_waitForServer);
        if (patience > TimeSpan.Zero && remote is null)
        {
            throw new UsageException("--wait-for-server waits for a --server; the server ping starts is waited for anyway");
        }

        if (await ServerWait.UnsupportedReasonAsync(transport, patience, ct) is { } reason)
        {
            throw new UnsupportedException($"{transport.Name} does not run here: {reason}");
        }
        string runtime = parsed.GetValue(_runtime) ?? ClientRuntime.Current;
        if (runtime == ClientRuntime.NativeAot && transport.NativeAotUnsupportedReason is { } noAot)
        {
            throw new UnsupportedException($"{transport.Name} does not run in a NativeAOT build: {noAot}");
        }
        var clientBuild = parsed.GetValue(_runtime) is { } asked ? ClientRuntime.Build(asked) ?? throw new UnsupportedException(ClientRuntime.Missing(asked)) : null;
        if (clientBuild is not null && connectScenario)
        {
            throw new UsageException("--runtime runs the steady or start scenario's client from that build; --scenario connect measures in this process");
        }
        if (transport.Capabilities.RejectSize(size) is { } tooLarge)
        {
            throw new UnsupportedException($"{transport.Name} cannot carry this payload: {tooLarge}");
        }
        if (parsed.GetValue(_replySize) is int replySize && transport.Capabilities.RejectReplySize(replySize, size) is { } noSuchReply)
        {
            throw new UnsupportedException($"{transport.Name} cannot send these replies: {noSuchReply}");
        }
        if (transport.Capabilities.Has(TransportFeatures.InProcess) && (remote is not null || parsed.GetValue(_clientProcesses) > 1 || parsed.GetValue(_runtime) is not null))
        {
            throw new UnsupportedException($"{transport.Name} is not IPC: its server is the handler in this process, which no other process reaches");
        }
        if (remote is null && transport.ServerUnsupportedReason is { } noServer)
        {
            throw new UnsupportedException($"{transport.Name}'s server does not run here: {noServer}");
        }
        if (isolation.Refuses(transport) is { } notHere)
        {
            throw new UnsupportedException($"{transport.Name} is not supported in isolation {isolation.Name()} here: {notHere}");
        }
        if (!parsed.GetValue(_noResults) && parsed.GetValue(_workerOutput) is null
            && RunFolder.Root(parsed.GetValue(_results)) is var root && RunFolder.Unwritable(root) is { } why)
        {
            throw new UsageException($"cannot write results to {root}: {why}; give --results (or {RunFolder.ResultsVariable}) a folder you can write, or pass --no-results");
        }
        var loop = Loop(parsed, size, transport, scenario);
        if ((transport.Capabilities.RejectClients(loop.Clients) ?? transport.Capabilities.RejectInFlight(loop.InFlight)) is { } notUnderLoad)
        {
            throw new UnsupportedException($"{transport.Name} cannot run this load: {notUnderLoad}");
        }
        if (placement == Placement.SameCore)
        {
            foreach (var option in OptionValues.Of(transport).Where(options.IsGiven))
            {
                if (option.SameCoreAdvice.TryGetValue(options[option], out string? advice)) Log.Warn(advice);
            }
        }

        var (clientCpu, serverCpu) = placement.Cpus(serverLocal: remote is null);
        if (clientCpu is int cpu)
        {
            CpuAffinity.PinCurrentProcess(cpu); // before the server starts, so nothing runs unpinned
        }
        // Options that shape both ends go to the server; the client takes every one.
        await using var local = remote is null
            ? await LocalServer.StartAsync(transport, isolation, options.Given(OptionScope.BothEnds), serverCpu,
                line => Console.Error.WriteLine($"[server] {line}"), ct, loop.ReplySize)
            : null;
        var server = local?.Process;
        var address = AddressQuery.With(remote ?? local!.Address, options.Given(OptionScope.BothEnds, OptionScope.Client, OptionScope.Limit));

        LoopResult result;
        try
        {
            var progress = Console.IsErrorRedirected ? null : Progress(transport.Name, size, loop);
            var first = await ServerWait.ConnectAsync(transport, address, patience, ct);
            if (scenario != CaseKey.Steady)
            {
                await first.DisposeAsync(); // the server is up: each cycle now connects anew
                result = connectScenario
                    ? await ConnectLoop.RunAsync(transport, address, loop, progress, ct)
                    : await StartLoop.RunAsync(clientBuild ?? ClientRuntime.Self(), transport, address, loop, progress, ct);
            }
            else
            {
                result = await SteadyAsync(parsed, transport, address, loop, first, clientBuild, progress, ct);
            }
            if (progress is not null) Console.Error.Write("\r" + new string(' ', 72) + "\r");
        }
        catch (TransportException e) when (server is { HasExited: true })
        {
            throw new TransportException($"{e.Message}; the server process exited: {server.RecentErrors}");
        }
        catch (TransportTimeoutException) when (server is not null)
        {
            // It stopped answering (frozen, stuck): a graceful stop would only wait out its stop timeout before the error is told.
            server.Kill();
            throw;
        }

        if (parsed.GetValue(_workerOutput) is { } prefix)
        {
            ClientProcesses.Write(prefix, result); // the parent reports it, with the other workers'
            return ExitCodes.Success;
        }
        var results = PingResults.Build(new PingResults.Run(parsed.Tokens.Select(t => t.Value).ToList(), started, options,
            address, remote, loop, placement, placement.Describe(serverLocal: remote is null), result, scenario,
            local?.Isolation ?? Isolation.None, local?.IsolationDescription, parsed.GetValue(_clientProcesses), runtime));
        Console.Out.Write(PingOutput.Text(results));
        if (parsed.GetValue(_json) is { } jsonPath)
        {
            RegularFile.Replace(jsonPath, ResultsFile.Serialize(results));
        }
        if (!parsed.GetValue(_noResults))
        {
            Console.Error.WriteLine($"results: {PingResults.Write(results, parsed.GetValue(_results))}");
        }
        return ExitCodes.Success;
    }

    /// <summary>The server given by --server, else by IPCBENCH_SERVER, else null (ping starts one).</summary>
    private Uri? Remote(ParseResult parsed) =>
        parsed.GetValue(_server) ?? (Environment.GetEnvironmentVariable(ServerVariable) is { Length: > 0 } env
            ? Uri.TryCreate(env, UriKind.Absolute, out var uri) ? uri : throw new UsageException($"{ServerVariable} must be an absolute URI, not '{env}'")
            : null);

    /// <summary>
    /// <paramref name="info"/>, a client process of this ping's, told the server's address in its environment
    /// (IPCBENCH_SERVER), never in its arguments: an address may hold a password, and any user can read a process's
    /// arguments (ps, /proc/PID/cmdline), while its environment is its owner's.
    /// </summary>
    internal static ProcessStartInfo CallingServer(ProcessStartInfo info, Uri address)
    {
        info.Environment[ServerVariable] = address.ToString();
        return info;
    }

    /// <summary>
    /// A start-scenario client (<see cref="StartLoop"/>): connect to --server, one request with its reply checked, then the
    /// moment of that reply on stdout. Nothing else: no warm-up, no results.
    /// </summary>
    private async Task<int> FirstReplyAsync(ParseResult parsed, CancellationToken ct)
    {
        var transport = TransportArgument.Resolve(parsed.GetValue(_transport)!);
        if (ClientRuntime.Refuses(transport) is { } notHere)
        {
            throw new UnsupportedException($"{transport.Name} does not run here: {notHere}");
        }
        var server = Remote(parsed) ?? throw new UsageException($"--first-reply calls a --server (or {ServerVariable})");
        var address = AddressQuery.With(server, _flags.Parse(parsed, transport, server).Given(OptionScope.BothEnds, OptionScope.Client, OptionScope.Limit));
        byte[] request = new byte[parsed.GetValue(_size)], reply = new byte[request.Length];
        Payload.Fill(request);
        long repliedAt;
        await using (var connection = await transport.ConnectAsync(address, ct))
        {
            int length = await connection.RequestAsync(request, reply, ct);
            repliedAt = System.Diagnostics.Stopwatch.GetTimestamp();
            if (Payload.CheckEcho(request, reply.AsSpan(0, length), content: true) is { } problem)
            {
                throw new ReplyMismatchException(problem);
            }
        }
        Console.Out.WriteLine(StartLoop.Report(repliedAt));
        return ExitCodes.Success;
    }

    /// <summary>
    /// The steady scenario under the load asked for: the clients in this process, or spread over client processes, or
    /// (as one of those, --worker-output) this process's share, released by the parent.
    /// </summary>
    private async Task<LoopResult> SteadyAsync(ParseResult parsed, ITransport transport, Uri address, LoopOptions loop,
        IConnection first, ServerCommand? clientBuild, Action<double>? progress, CancellationToken ct)
    {
        var connections = new List<IConnection> { first };
        try
        {
            int processes = parsed.GetValue(_clientProcesses);
            if (processes > 1 || clientBuild is not null)
            {
                return await ClientProcesses.RunAsync(clientBuild ?? ServerCommand.Resolve(), address, loop, processes, first,
                    part => WorkerArguments(transport, part), ct);
            }
            while (connections.Count < loop.Clients)
            {
                connections.Add(await transport.ConnectAsync(address, ct));
            }
            if (parsed.GetValue(_workerOutput) is not { } prefix)
            {
                return await LoadLoop.RunAsync(connections, loop, progress, ct);
            }
            using var run = CancellationTokenSource.CreateLinkedTokenSource(ct);
            var go = ClientProcesses.WaitForGo(run);
            using var heartbeat = ClientProcesses.Heartbeat();
            return await LoadLoop.RunAsync(connections, loop, null, run.Token, async released =>
            {
                Console.Out.WriteLine($"READY {new Uri(prefix)}");
                Console.Out.Flush();
                await go.WaitAsync(released);
            });
        }
        finally
        {
            foreach (var connection in connections)
            {
                await connection.DisposeAsync();
            }
        }
    }

    /// <summary>A client process's ping arguments for its <paramref name="part"/> of the load (the server and its options travel in its environment: <see cref="CallingServer"/>).</summary>
    private static IEnumerable<string> WorkerArguments(ITransport transport, LoopOptions part)
    {
        string Ms(TimeSpan t) => $"{ClientProcesses.Invariant(t.TotalMilliseconds)}ms";
        yield return "--transport"; yield return transport.Name;
        yield return "--size"; yield return ClientProcesses.Invariant(part.Size);
        if (part.ReplySize is int reply)
        {
            yield return "--reply-size"; yield return ClientProcesses.Invariant(reply);
        }
        yield return "--clients"; yield return ClientProcesses.Invariant(part.Clients);
        yield return "--in-flight"; yield return ClientProcesses.Invariant(part.InFlight);
        if (part.Duration > TimeSpan.Zero)
        {
            yield return "--duration"; yield return Ms(part.Duration);
        }
        else
        {
            yield return "--count"; yield return ClientProcesses.Invariant(part.Count);
        }
        yield return "--warmup"; yield return part.WarmupDuration > TimeSpan.Zero ? Ms(part.WarmupDuration) : ClientProcesses.Invariant(part.Warmup);
        if (part.Rate > 0)
        {
            yield return "--rate"; yield return ClientProcesses.Invariant(part.Rate);
        }
        if (part.Gap > TimeSpan.Zero)
        {
            yield return "--gap"; yield return Ms(part.Gap);
        }
        yield return "--placement"; yield return "none"; // each inherits this process's CPU affinity
        yield return "--no-results";
    }

    /// <summary>
    /// Same-core, the one placement whose round trips wait for no CPU to wake, so that its figures hold however the machine
    /// idles (a cross-CPU wake-up costs from a few to tens of microseconds on a VM, with whether the CPU was idle); none for a
    /// --server, whose CPU is not ours to pin; cross-core where a given option needs a CPU per side (its same-core advice).
    /// </summary>
    private static Placement DefaultPlacement(ITransport transport, OptionValues options, Uri? remote) =>
        remote is not null ? Placement.None
        : OptionValues.Of(transport).Any(o => options.IsGiven(o) && o.SameCoreAdvice.ContainsKey(options[o]))
          && CpuAffinity.UsableCpus().Count > 1 ? Placement.CrossCore
        : Placement.SameCore;

    /// <summary>The loop the options ask for; a load the cold-start scenarios cannot run is a usage error.</summary>
    private LoopOptions Loop(ParseResult parsed, int size, ITransport transport, string scenario)
    {
        var (warmup, warmupTime) = parsed.GetValue(_warmup);
        bool startScenario = scenario == CaseKey.Start;
        // A process start takes tens of milliseconds: the start scenario's defaults are a few, not ten thousand.
        int count = startScenario && parsed.GetResult(_count) is null or { Implicit: true } ? 20 : parsed.GetValue(_count);
        warmup = startScenario && parsed.GetResult(_warmup) is null or { Implicit: true } ? 2 : warmup;
        var loop = new LoopOptions(size, count, warmup, TolerateLoss: transport.Capabilities.MayLoseMessages, Gap: parsed.GetValue(_gap))
        {
            ReplySize = parsed.GetValue(_replySize) is int reply && reply != size ? reply : null,
            Clients = parsed.GetValue(_clients),
            InFlight = parsed.GetValue(_inFlight),
            Rate = parsed.GetValue(_rate),
            Duration = parsed.GetValue(_duration),
            WarmupDuration = warmupTime,
        };
        int processes = parsed.GetValue(_clientProcesses);
        if (processes > loop.Clients)
        {
            throw new UsageException($"--client-processes {processes} needs at least as many --clients, not {loop.Clients}");
        }
        if (scenario != CaseKey.Steady && (loop.Lanes > 1 || processes > 1 || loop.Rate > 0 || loop.Duration > TimeSpan.Zero || warmupTime > TimeSpan.Zero
                || loop.ReplySize is not null))
        {
            throw new UsageException($"--scenario {scenario} runs one echo cycle after another: --clients, --client-processes, --in-flight, --rate, --duration, --reply-size and a --warmup time are for the steady scenario");
        }
        return loop;
    }

    /// <summary>A progress line on a terminal's stderr: what runs, how far, and about how long is left.</summary>
    private static Action<double> Progress(string transport, int size, LoopOptions loop)
    {
        var watch = System.Diagnostics.Stopwatch.StartNew();
        string load = loop.Lanes > 1 ? $" x {loop.Lanes} loops" : "";
        return done =>
        {
            var left = TimeSpan.FromSeconds(watch.Elapsed.TotalSeconds * (1 - done) / Math.Max(done, 1e-6));
            Console.Error.Write($"\r  {transport} {size} B{load}: {100 * done:0}% measured, about {left.TotalSeconds:0} s left   ");
        };
    }

    /// <summary>The largest size --size accepts; each transport then checks its own maximum.</summary>
    private const int LengthPrefixLimit = Kit.Framing.LengthPrefix.DefaultMaxPayload;
}
