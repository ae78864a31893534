using BenchmarkDotNet.Attributes;
using IpcBench.Contract;
using IpcBench.Harness.Hosting;
using IpcBench.Harness.Measurement;
using IpcBench.Harness.Running;

namespace IpcBench.Benchmarks;

/// <summary>
/// Cold start, as netperf's TCP_CRR measures it: each operation is one of <see cref="ConnectLoop"/>'s cycles (connect,
/// one 1 B request, its checked reply, close), as <c>ipcbench ping --scenario connect</c> runs them. What a client that
/// opens a connection (or a channel) per call pays, beside <see cref="RoundTripBenchmark"/>'s steady state. One size:
/// the cost is the connection's.
/// </summary>
public class ConnectBenchmark
{
    public const string Scenario = CaseKey.Connect;

    private PreparedCase? _server;
    private ITransport? _transport;
    private Uri? _address;
    private readonly byte[] _request = new byte[1];
    private readonly byte[] _reply = new byte[1];
    private readonly LatencyRecorder _recorder = new();
    private long _cycles;
    private CostMeter _clientCost;
    private ServerStats.Snapshot? _serverBefore;

    [ParamsSource(typeof(SuiteSettings), nameof(SuiteSettings.Transports))]
    public string Transport { get; set; } = "tcp";

    [Params(1)]
    public int Size { get; set; }

    [GlobalSetup]
    public async Task SetupAsync()
    {
        (_transport, _server) = await SuiteServer.StartAsync(Transport, new(Size, Size));
        _address = _server.Address;
        await SuiteSettings.WarmUpAsync(10, ConnectRequestClose,
            () => ConnectLoop.AskServerAsync(_transport, _address, ServerStats.JitSettledAsync, CancellationToken.None));
        _recorder.Reset();
        _cycles = 0;
        _serverBefore = await ConnectLoop.AskServerAsync(_transport, _address, ServerStats.QueryAsync, CancellationToken.None);
        _clientCost = CostMeter.Start();
    }

    [Benchmark]
    public async ValueTask ConnectRequestClose()
    {
        Payload.Stamp(_request, _cycles++); // a reply left over from another cycle cannot pass the check
        _recorder.Record(await ConnectLoop.CycleAsync(_transport!, _address!, _request, _reply, CancellationToken.None));
    }

    [GlobalCleanup]
    public async Task CleanupAsync()
    {
        var clientCost = _clientCost.Stop(_cycles);
        var serverAfter = await ConnectLoop.AskServerAsync(_transport!, _address!, ServerStats.QueryAsync, CancellationToken.None);
        LatencySidecar.Write(Scenario, Transport, new(Size, Size),
            _recorder.Result(0, clientCost, ConnectLoop.ServerSharePerCycle(_serverBefore, serverAfter, _cycles)));
        if (_server is not null)
        {
            await _server.DisposeAsync();
        }
    }
}
