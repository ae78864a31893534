using BenchmarkDotNet.Attributes;
using IpcBench.Contract;
using IpcBench.Harness.Hosting;
using IpcBench.Harness.Measurement;
using IpcBench.Harness.Running;

namespace IpcBench.Benchmarks;

/// <summary>
/// Steady-state request/reply: one connection to an echo server in another process, one request in
/// flight. Each operation is one round trip; every round trip is also timed on its own, so that the
/// summary shows per-request percentiles (the P50..P99.9 columns) and not only BenchmarkDotNet's
/// statistics of iteration means.
/// </summary>
public class RoundTripBenchmark
{
    public const string Scenario = CaseKey.Steady;

    private PreparedCase? _server;
    private IConnection? _connection;
    private Exchange? _exchange;
    private readonly LatencyRecorder _recorder = new();
    private bool _tolerateLoss;
    private long _requests;
    private CostMeter _clientCost;
    private ServerStats.Meter? _serverShare;

    [ParamsSource(typeof(SuiteSettings), nameof(SuiteSettings.Transports))]
    public string Transport { get; set; } = "tcp";

    /// <summary>The request's payload and the reply's ("1 KB" each, or "16 B:64 KB").</summary>
    [ParamsSource(typeof(SuiteSettings), nameof(SuiteSettings.Sizes))]
    public MessageSizes Size { get; set; } = new(1, 1);

    [GlobalSetup]
    public async Task SetupAsync()
    {
        (var transport, _server) = await SuiteServer.StartAsync(Transport, Size);
        var address = _server.Address;
        _connection = await transport.ConnectAsync(address);
        _exchange = new Exchange(_connection, Size.Request, replySize: Size.ReplySize);
        _tolerateLoss = transport.Capabilities.MayLoseMessages;
        var exchange = _exchange;
        var connection = _connection;
        await SuiteSettings.WarmUpAsync(100, async () => await exchange.SendAsync(_tolerateLoss, CancellationToken.None),
            () => ServerStats.JitSettledAsync(connection, _tolerateLoss));
        _serverShare = await ServerStats.Meter.StartAsync(_connection, _tolerateLoss);
        _clientCost = CostMeter.Start();
    }

    [Benchmark]
    public async ValueTask RoundTrip()
    {
        _requests++;
        long ticks = await _exchange!.SendAsync(_tolerateLoss, CancellationToken.None);
        if (ticks >= 0)
        {
            _recorder.Record(ticks);
        }
        else
        {
            LostReplies++;
        }
    }

    /// <summary>Requests whose reply never came (datagram transports only).</summary>
    public long LostReplies { get; private set; }

    [GlobalCleanup]
    public async Task CleanupAsync()
    {
        // CPU per request over everything since setup: pilot, warm-up and measured iterations alike.
        var clientCost = _clientCost.Stop(_requests);
        var serverShare = _serverShare is null ? null : await _serverShare.StopAsync();
        if (_connection is not null)
        {
            await _connection.DisposeAsync();
        }
        LatencySidecar.Write(Scenario, Transport, Size, _recorder.Result(LostReplies, clientCost, serverShare));
        if (_server is not null)
        {
            await _server.DisposeAsync();
        }
    }
}
