using System.Diagnostics;
using BenchmarkDotNet.Attributes;
using IpcBench.Core.Contract;
using IpcBench.Core.Harness.Hosting;
using IpcBench.Core.Harness.Measurement;
using IpcBench.Core.Kit.Processes;

namespace IpcBench.Benchmarks;

/// <summary>
/// Aggregate throughput: <see cref="Clients"/> connections to one server, each driven by a thread of its own with one
/// request in flight. An operation is one request; each invocation releases every client for its share of
/// <see cref="RequestsPerInvoke"/> and waits for the last, so that the Req/s column is the requests per second of all
/// clients together. Every round trip is timed too (the percentiles are over every client's requests), and each
/// client's rate kept (the MB/s and client spread columns).
/// </summary>
public class ThroughputBenchmark
{
    public const string Scenario = Reporting.CaseKey.Throughput;

    /// <summary>
    /// Requests per invocation, split evenly over the clients (divisible by each client count): few enough that a
    /// transport of 40 ms round trips (tcp-nagle) takes seconds, not minutes, an invocation (1,024 took its one-client
    /// case past ten minutes), enough that releasing the clients is a small part of a round.
    /// </summary>
    public const int RequestsPerInvoke = 64;

    private static readonly TimeSpan RoundTimeout = TimeSpan.FromMinutes(2);

    private LocalServer? _server;
    private readonly List<IConnection> _connections = [];
    private Client[] _clients = [];
    private CountdownEvent? _done;
    private CostMeter _cost;
    private ServerStats.CpuMeter? _serverCpu;
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
        (var transport, _server, var address) = await SuiteServer.StartAsync(Transport);
        for (int i = 0; i < Clients; i++)
        {
            _connections.Add(await transport.ConnectAsync(address));
        }
        _done = new CountdownEvent(Clients);
        var options = new LoopOptions(Size, RequestsPerInvoke, Warmup: 0, TolerateLoss: !transport.Capabilities.Has(TransportFeatures.Reliable)) { Clients = Clients };
        _clients = [.. _connections.Select((c, i) => new Client(new RequestLoop(c, options, i), RequestsPerInvoke / Clients, _done))];
        RequestLoop.ReserveThreadPool(Clients);
        await SuiteSettings.WarmUpAsync(10, () =>
        {
            Round();
            return ValueTask.CompletedTask;
        });
        foreach (var client in _clients)
        {
            client.Forget();
        }
        _serverCpu = await ServerStats.CpuMeter.StartAsync(_connections[0]);
        _cost = CostMeter.Start();
    }

    [Benchmark(OperationsPerInvoke = RequestsPerInvoke)]
    public void Round()
    {
        long started = Stopwatch.GetTimestamp();
        _done!.Reset();
        foreach (var client in _clients)
        {
            client.Go();
        }
        if (!_done.Wait(RoundTimeout))
        {
            throw new TransportTimeoutException($"the clients did not finish {RequestsPerInvoke} requests within {RoundTimeout.TotalSeconds:0} s");
        }
        _measuring += Stopwatch.GetTimestamp() - started;
        foreach (var client in _clients)
        {
            client.ThrowIfFailed();
        }
    }

    [GlobalCleanup]
    public async Task CleanupAsync()
    {
        long requests = _clients.Sum(c => c.Recorder.Count + c.Errors);
        var cost = _cost.Stop(requests) with { Elapsed = Stopwatch.GetElapsedTime(0, _measuring) };
        double? serverCpu = _serverCpu is null ? null : await _serverCpu.StopAsync();
        foreach (var client in _clients)
        {
            client.Stop();
        }
        var recorder = LatencyRecorder.Combine([.. _clients.Select(c => c.Recorder)]);
        LatencySidecar.Write(Scenario, Transport, new(Size, Size), recorder.Result(_clients.Sum(c => c.Errors), cost, serverCpu) with
        {
            ClientRequestsPerSecond = [.. _clients.Select(c => c.RequestsPerSecond)],
        }, Clients);
        foreach (var connection in _connections)
        {
            await connection.DisposeAsync();
        }
        _done?.Dispose();
        if (_server is not null)
        {
            await _server.DisposeAsync();
        }
    }

    /// <summary>One connection's thread: waits to be released, runs its request loop for its share of a round, signals, waits again.</summary>
    private sealed class Client
    {
        private readonly RequestLoop _loop;
        private readonly int _share;
        private readonly CountdownEvent _done;
        private readonly SemaphoreSlim _go = new(0);
        private readonly Task _thread;
        private volatile bool _stopping;
        private Exception? _failure;
        private long _busyTicks;

        public Client(RequestLoop loop, int share, CountdownEvent done)
        {
            (_loop, _share, _done) = (loop, share, done);
            _thread = DedicatedThread.Start("ipcbench throughput client", () => RunAsync().GetAwaiter().GetResult());
        }

        public LatencyRecorder Recorder => _loop.Recorder;

        public long Errors => _loop.Errors;

        public double RequestsPerSecond => Recorder.Count / Stopwatch.GetElapsedTime(0, Math.Max(_busyTicks, 1)).TotalSeconds;

        public void Go() => _go.Release();

        /// <summary>Warm-up is over: what was recorded so far does not count.</summary>
        public void Forget()
        {
            _loop.Reset();
            _busyTicks = 0;
        }

        public void ThrowIfFailed()
        {
            if (_failure is { } e)
            {
                throw new TransportException($"a client failed: {e.Message}", e);
            }
        }

        public void Stop()
        {
            _stopping = true;
            _go.Release();
            _thread.Wait(RoundTimeout);
        }

        private async Task RunAsync()
        {
            while (true)
            {
                _go.Wait(); // blocking: a client whose transport completes inline keeps its own thread
                if (_stopping)
                {
                    return;
                }
                long started = Stopwatch.GetTimestamp();
                try
                {
                    await _loop.RunAsync(started, deadline: long.MaxValue, _share, progress: null, CancellationToken.None).ConfigureAwait(false);
                }
                catch (Exception e)
                {
                    _failure = e;
                }
                _busyTicks += Stopwatch.GetTimestamp() - started;
                _done.Signal();
            }
        }
    }
}
