using System.Diagnostics;
using BenchmarkDotNet.Attributes;
using IpcBench.Contract;
using IpcBench.Harness.Hosting;
using IpcBench.Harness.Measurement;
using IpcBench.Harness.Running;

namespace IpcBench.Benchmarks;

/// <summary>
/// Aggregate throughput: <see cref="Clients"/> connections to one server, each driven by a thread of its own with one
/// request in flight (<see cref="LaneThreads"/>, as <c>ipcbench ping --clients</c> drives them). An operation is one
/// request; each invocation releases every client for its share of <see cref="RequestsPerInvoke"/> and waits for the
/// last, so that the Req/s column is the requests per second of all clients together. Every round trip is timed too (the percentiles are over every client's requests), and each
/// client's rate kept (the MB/s and client spread columns).
/// </summary>
public class ThroughputBenchmark
{
    public const string Scenario = CaseKey.Throughput;

    /// <summary>
    /// Requests per invocation, split evenly over the clients (divisible by each client count): few enough that a
    /// transport of 40 ms round trips (tcp-nagle) takes seconds, not minutes, an invocation (1,024 took its one-client
    /// case past ten minutes), enough that releasing the clients is a small part of a round.
    /// </summary>
    public const int RequestsPerInvoke = 64;

    private static readonly TimeSpan RoundTimeout = TimeSpan.FromMinutes(2);

    private PreparedCase? _server;
    private readonly List<IConnection> _connections = [];
    private RequestLoop[] _loops = [];
    private LaneThreads? _lanes;
    private long[] _busyTicks = [];
    private CostMeter _cost;
    private ServerStats.Meter? _serverShare;
    private long _measuring;

    [ParamsSource(typeof(SuiteSettings), nameof(SuiteSettings.Transports))]
    public string Transport { get; set; } = "tcp";

    [Params(1)]
    public int Size { get; set; }

    [ParamsSource(nameof(ClientCounts))]
    public int Clients { get; set; }

    public static IReadOnlyList<int> ClientCounts { get; } = [1, 4, 16];

    [GlobalSetup]
    public async Task SetupAsync()
    {
        (var transport, _server) = await SuiteServer.StartAsync(Transport, new(Size, Size));
        var address = _server.Address;
        for (int i = 0; i < Clients; i++)
        {
            _connections.Add(await transport.ConnectAsync(address));
        }
        var options = new LoopOptions(Size, RequestsPerInvoke, Warmup: 0, TolerateLoss: transport.Capabilities.MayLoseMessages) { Clients = Clients };
        _loops = [.. _connections.Select((c, i) => new RequestLoop(c, options, i))];
        _lanes = new LaneThreads(_loops);
        _busyTicks = new long[Clients];
        // Round blocks until every lane has its replies, so not here: this continuation may run on a transport's own
        // reader thread (Tmds.DBus completes a call on the thread that read its reply), which the lanes then wait for.
        await SuiteSettings.WarmUpAsync(10, async () => await Task.Run(Round), () => ServerStats.JitSettledAsync(_connections[0], options.TolerateLoss));
        foreach (var loop in _loops)
        {
            loop.Reset(); // what the warm-up recorded does not count
        }
        Array.Clear(_busyTicks);
        _measuring = 0;
        _serverShare = await ServerStats.Meter.StartAsync(_connections[0], options.TolerateLoss);
        _cost = CostMeter.Start();
    }

    [Benchmark(OperationsPerInvoke = RequestsPerInvoke)]
    public void Round()
    {
        long started = Stopwatch.GetTimestamp();
        long[] ends = _lanes!.Run((loop, ct) => loop.RunAsync(started, deadline: long.MaxValue, RequestsPerInvoke / Clients, progress: null, ct),
            RoundTimeout, CancellationToken.None);
        _measuring += ends.Max() - started;
        for (int i = 0; i < ends.Length; i++)
        {
            _busyTicks[i] += ends[i] - started;
        }
    }

    [GlobalCleanup]
    public async Task CleanupAsync()
    {
        long requests = _loops.Sum(l => l.Recorder.Count + l.Errors);
        var cost = _cost.Stop(requests) with { Elapsed = Stopwatch.GetElapsedTime(0, _measuring) };
        var serverShare = _serverShare is null ? null : await _serverShare.StopAsync();
        _lanes?.Dispose();
        var recorder = LatencyRecorder.Combine([.. _loops.Select(l => l.Recorder)]);
        LatencySidecar.Write(Scenario, Transport, new(Size, Size), recorder.Result(_loops.Sum(l => l.Errors), cost, serverShare) with
        {
            ClientRequestsPerSecond = [.. _loops.Select(l => l.Recorder.Count / Stopwatch.GetElapsedTime(0, Math.Max(_busyTicks[l.Index], 1)).TotalSeconds)],
        }, Clients);
        foreach (var connection in _connections)
        {
            await connection.DisposeAsync();
        }
        if (_server is not null)
        {
            await _server.DisposeAsync();
        }
    }
}
