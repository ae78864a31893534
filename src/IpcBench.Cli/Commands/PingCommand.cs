using System.Globalization;
using System.Text.Json;
using IpcBench.Core;
using IpcBench.Core.Hosting;
using IpcBench.Core.Measurement;

namespace IpcBench.Cli.Commands;

/// <summary><c>ipcbench ping</c>: a closed-loop request/reply measurement against a server it starts or is given.</summary>
internal static class PingCommand
{
    public const string ServerVariable = "IPCBENCH_SERVER";

    public const string Help = """
        Usage: ipcbench ping --transport NAME [--server URI] [--size BYTES] [--count N] [--warmup N]
                             [--placement none|same-core|cross-core] [--io sync|async] [--wait spin|hybrid|block]
                             [--timeout DURATION] [--gap DURATION] [--scenario steady|connect] [--json FILE] [--results DIR | --no-results]

        Sends requests one at a time and times every round trip; every reply's length and
        content are checked. Without --server, starts 'ipcbench serve' as a child process and
        stops it afterwards.

          --transport NAME    transport to measure (see 'ipcbench list')
          --server URI        an already running server (also IPCBENCH_SERVER), e.g. tcp://10.0.0.2:5000
          --size BYTES        request and reply payload: 1, 1KB, 100KB ... (default 1; 1KB = 1024 B)
          --count N           measured requests (default 10000)
          --warmup N          unmeasured requests sent first (default 1000)
          --placement P       none (default): the OS decides; same-core: client and server pinned to
                              one CPU; cross-core: pinned to two different CPUs
          --io sync|async     socket and pipe transports: blocking calls on a dedicated thread
                              (default) or async calls; the others wait their own way
          --wait MODE         mmf only: how both sides wait: spin, hybrid (default) or block
          --timeout DURATION  longest wait for one reply, e.g. 500ms, 2s (default 10s)
          --scenario S        steady (default): one connection, timed round trips; connect: each
                              request on a new connection, connect + request + close timed as one
          --gap DURATION      pause after each reply, e.g. 1ms: sparse traffic, where waiting costs show
                              in the CPU figures (requests/s then counts the pauses too)
          --json FILE         also write the result as one JSON object to FILE
          --results DIR       where the run folder goes (default: IPCBENCH_RESULTS, else results/ at the
                              repository root, else ./results); its path is printed on stderr
          --no-results        write no run folder

        Each run writes a folder DIR/<yyyyMMdd-HHmmss>-ping/ with results.json, summary.md,
        summary.csv, env.md and two SVG charts; see 'ipcbench report' and 'ipcbench compare'.

        Exit codes: 0 success; 1 the run failed (server unreachable or died, bad reply);
        2 bad options; 3 the transport or size does not run here.
        """;

    public static async Task<int> RunAsync(IReadOnlyList<string> args, CancellationToken ct)
    {
        var started = DateTimeOffset.UtcNow;
        var a = Arguments.Parse(args, ["transport", "server", "size", "count", "warmup", "placement", "io", "wait", "timeout", "gap", "scenario", "json", "results"], ["no-results"]);
        if (a.Has("results") && a.Has("no-results"))
        {
            throw new UsageException("--results and --no-results exclude each other");
        }
        var transport = TransportRegistry.Get(a.Require("transport"));
        int size = a.GetSize("size", 1, LengthPrefixLimit);
        int count = a.GetInt("count", 10_000, 1, 100_000_000);
        int warmup = a.GetInt("warmup", 1_000, 0, 100_000_000);
        var placement = Parse(() => Placements.Parse(a.Get("placement") ?? "none"));
        var gap = a.Get("gap") is { } g ? Parse(() => EndpointOptions.ParseDuration("--gap", g)) : TimeSpan.Zero;
        bool connectScenario = (a.Get("scenario") ?? "steady") switch
        {
            "steady" => false,
            "connect" => true,
            var other => throw new UsageException($"--scenario must be steady or connect, not '{other}'"),
        };
        var remote = a.GetUri("server") ?? (Environment.GetEnvironmentVariable(ServerVariable) is { Length: > 0 } env
            ? Parse(() => new Uri(env, UriKind.Absolute)) : null);
        if (remote is not null && !string.Equals(remote.Scheme, transport.Name, StringComparison.OrdinalIgnoreCase))
        {
            throw new UsageException($"--server {remote} is not a {transport.Name}:// address");
        }
        // --io and --wait shape both ends; --timeout only the client's waits.
        var shared = AddressOptions(a, "io", "wait");
        var clientOnly = AddressOptions(a, "timeout");
        var bind = Parse(() => AddressChecks.Validate(transport, EndpointOptions.WithAll(transport.DefaultAddress(), shared)));

        if (transport.UnsupportedReason is { } reason)
        {
            throw new UnsupportedException($"{transport.Name} does not run here: {reason}");
        }
        if (transport.Capabilities.RejectSize(size) is { } tooLarge)
        {
            throw new UnsupportedException($"{transport.Name} cannot carry this payload: {tooLarge}");
        }

        if (placement == Placement.SameCore && EndpointOptions.Query(bind).GetValueOrDefault("wait") == "spin")
        {
            Log.Warn("spinning client and server pinned to one CPU take turns at the scheduler's pace; use cross-core");
        }
        var (clientCpu, serverCpu) = Parse(() => placement.Cpus());
        if (clientCpu is int cpu)
        {
            CpuAffinity.PinCurrentProcess(cpu); // before the server starts, so nothing runs unpinned
        }

        await using var server = remote is null
            ? await ServerProcess.StartAsync(transport.Name, bind, serverCpu, line => Console.Error.WriteLine($"[server] {line}"), ct: ct)
            : null;
        var address = Parse(() => AddressChecks.Validate(transport, EndpointOptions.WithAll(remote ?? server!.Address, string.Join("&", new[] { shared, clientOnly }.Where(o => o.Length > 0)))));

        LoopResult result;
        try
        {
            var progress = Console.IsErrorRedirected ? null : Progress(transport.Name, size, count);
            var loop = new LoopOptions(size, count, warmup, TolerateLoss: !transport.Capabilities.Has(TransportFeatures.Reliable), Gap: gap);
            if (connectScenario)
            {
                result = await ConnectLoop.RunAsync(transport, address, loop, progress, ct);
            }
            else
            {
                await using var connection = await transport.ConnectAsync(address, ct);
                result = await ClosedLoop.RunAsync(connection, loop, progress, ct);
            }
            if (progress is not null) Console.Error.Write("\r" + new string(' ', 72) + "\r");
        }
        catch (TransportException e) when (server is { HasExited: true })
        {
            throw new TransportException($"{e.Message}; the server process exited: {server.RecentErrors}");
        }

        var report = PingReport.From(transport, address, connectScenario ? "connect" : "steady", size, count, warmup,
            placement.Describe(serverLocal: remote is null), result);
        Console.Out.Write(report.ToText());
        if (a.Get("json") is { } jsonPath)
        {
            await File.WriteAllTextAsync(jsonPath, report.ToJson() + Environment.NewLine, ct);
        }
        if (!a.Has("no-results"))
        {
            string folder = PingResults.Write(new PingResults.Run(args, started, transport, address, remote, size, count, warmup, gap,
                placement, report.Placement, result, connectScenario), a.Get("results"));
            Console.Error.WriteLine($"results: {folder}");
        }
        return 0;
    }

    /// <summary>A progress line on a terminal's stderr: what runs, how far, and about how long is left.</summary>
    private static Action<int> Progress(string transport, int size, int count)
    {
        var watch = System.Diagnostics.Stopwatch.StartNew();
        return done =>
        {
            var left = TimeSpan.FromSeconds(watch.Elapsed.TotalSeconds * (count - done) / Math.Max(done, 1));
            Console.Error.Write($"\r  {transport} {size} B: {done}/{count} requests ({100.0 * done / count:0}%), about {left.TotalSeconds:0} s left   ");
        };
    }

    /// <summary>The given options among <paramref name="keys"/>, as a query string ("io=async&amp;wait=spin").</summary>
    private static string AddressOptions(Arguments a, params string[] keys) =>
        string.Join("&", keys.Where(a.Has).Select(k => $"{k}={Uri.EscapeDataString(a.Get(k)!)}"));

    /// <summary>The largest size --size accepts; each transport then checks its own maximum.</summary>
    private const int LengthPrefixLimit = Core.Framing.LengthPrefix.DefaultMaxPayload;

    private static T Parse<T>(Func<T> parse)
    {
        try
        {
            return parse();
        }
        catch (Exception e) when (e is ArgumentException or UriFormatException)
        {
            throw new UsageException(e.Message);
        }
    }
}

/// <summary>One ping run's result: the text people read and the JSON object scripts read.</summary>
internal sealed record PingReport(
    string Transport, string Address, string Options, string Scenario, int Size, int Count, int Warmup, string Placement,
    double P50Us, double P90Us, double P99Us, double P999Us, double MaxUs, double MeanUs, double MinUs,
    double Rps, long Errors, double AllocBytesPerOp, double CpuUsPerOp, double? ServerCpuUsPerOp, double ElapsedS,
    string Os, string Runtime, int Cpus, string Timestamp)
{
    private static readonly JsonSerializerOptions JsonOptions = new()
    {
        PropertyNamingPolicy = JsonNamingPolicy.SnakeCaseLower,
        WriteIndented = true,
    };

    public static PingReport From(ITransport transport, Uri address, string scenario, int size, int count, int warmup, string placement, LoopResult r) =>
        new(transport.Name, EndpointOptions.WithoutQuery(address).ToString(), address.Query.TrimStart('?'), scenario, size, count, warmup, placement,
            Round(r.Latency.P50Us), Round(r.Latency.P90Us), Round(r.Latency.P99Us), Round(r.Latency.P999Us),
            Round(r.Latency.MaxUs), Round(r.Latency.MeanUs), Round(r.Latency.MinUs),
            Math.Round(r.RequestsPerSecond, 1), r.Errors, Math.Round(r.Cost.AllocatedBytesPerOp, 2), Round(r.Cost.CpuUsPerOp),
            r.ServerCpuUsPerOp is double s ? Round(s) : null,
            Math.Round(r.Cost.Elapsed.TotalSeconds, 3),
            System.Runtime.InteropServices.RuntimeInformation.OSDescription,
            System.Runtime.InteropServices.RuntimeInformation.FrameworkDescription,
            Environment.ProcessorCount, DateTimeOffset.UtcNow.ToString("O", CultureInfo.InvariantCulture));

    private static double Round(double us) => Math.Round(us, 3);

    public string ToJson() => JsonSerializer.Serialize(this, JsonOptions);

    public string ToText() => string.Create(CultureInfo.InvariantCulture, $"""
        {Transport} {Size} B x {Count}{(Scenario == "connect" ? " connect + request + close cycles" : "")} (placement {Placement}{(Options.Length > 0 ? ", " + Options : "")}) to {Address}
          latency us  p50 {P50Us:0.0}  p90 {P90Us:0.0}  p99 {P99Us:0.0}  p99.9 {P999Us:0.0}  max {MaxUs:0.0}  mean {MeanUs:0.0}
          throughput  {Rps:0} requests/s, {Errors} errors
          client      {CpuUsPerOp:0.0} us CPU and {AllocBytesPerOp:0.#} B allocated per request
          server      {(ServerCpuUsPerOp is double s ? $"{s:0.0} us CPU per request" : "CPU not reported (not an ipcbench server?)")}

        """);
}
