using System.Diagnostics;
using BenchmarkDotNet.Attributes;
using IpcBench.Core;
using IpcBench.Core.Hosting;
using IpcBench.Core.Measurement;

namespace IpcBench.Benchmarks;

/// <summary>
/// Cold start, as netperf's TCP_CRR measures it: each operation connects, sends one 1 B request,
/// checks the reply and closes. What a client that opens a connection (or a channel) per call pays,
/// beside <see cref="RoundTripBenchmark"/>'s steady state. One size: the cost is the connection's.
/// </summary>
public class ConnectBenchmark
{
    public const string Scenario = "connect";

    private LocalServer? _server;
    private ITransport? _transport;
    private Uri? _address;
    private readonly byte[] _request = new byte[1];
    private readonly byte[] _reply = new byte[1];
    private readonly LatencyRecorder _recorder = new();
    private long _cycles;
    private CostMeter _clientCost;

    [ParamsSource(typeof(SuiteSettings), nameof(SuiteSettings.Transports))]
    public string Transport { get; set; } = "tcp";

    [Params(1)]
    public int Size { get; set; }

    [GlobalSetup]
    public async Task SetupAsync()
    {
        (_transport, _server, _address) = await SuiteServer.StartAsync(Transport);
        await WarmUp.RunAsync(10, SuiteSettings.WarmupLimit, async (deadline, count) =>
        {
            for (int i = 0; i < count && Stopwatch.GetTimestamp() < deadline; i++)
            {
                await ConnectRequestClose();
            }
        });
        _recorder.Reset();
        _cycles = 0;
        _clientCost = CostMeter.Start();
    }

    [Benchmark]
    public async ValueTask ConnectRequestClose()
    {
        _cycles++;
        _request[0] = (byte)_cycles; // a reply left over from another cycle cannot pass the check
        _reply[0] = (byte)~_request[0];
        long start = Stopwatch.GetTimestamp();
        var connection = await _transport!.ConnectAsync(_address!);
        int length;
        try
        {
            length = await connection.RequestAsync(_request, _reply);
        }
        finally
        {
            await connection.DisposeAsync();
        }
        _recorder.Record(Stopwatch.GetTimestamp() - start);
        if (length != _request.Length || _reply[0] != _request[0])
        {
            throw new ReplyMismatchException($"connect cycle {_cycles}: the reply is not the echo of the request");
        }
    }

    [GlobalCleanup]
    public async Task CleanupAsync()
    {
        var clientCost = _clientCost.Stop(_cycles);
        // The server's CPU is not split per cycle here: its request count includes connect probes.
        LatencySidecar.Write(Scenario, Transport, new(Size, Size), _recorder.Result(0, clientCost, null));
        if (_server is not null)
        {
            await _server.DisposeAsync();
        }
    }
}
