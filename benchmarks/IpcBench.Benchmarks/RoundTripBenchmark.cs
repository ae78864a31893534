using BenchmarkDotNet.Attributes;
using IpcBench.Cli;
using IpcBench.Core;
using IpcBench.Core.Hosting;
using IpcBench.Core.Measurement;

namespace IpcBench.Benchmarks;

/// <summary>
/// Steady-state request/reply: one connection to an echo server in another process, one request in
/// flight. Each operation is one round trip; every round trip is also timed on its own, so that the
/// summary shows per-request percentiles (the P50..P99.9 columns) and not only BenchmarkDotNet's
/// statistics of iteration means.
/// </summary>
public class RoundTripBenchmark
{
    /// <summary>How many of the latest round trips the percentiles are over (a ring of 8 MB).</summary>
    private const int KeptSamples = 1 << 20;

    private ServerProcess? _server;
    private IConnection? _connection;
    private ClosedLoop.Exchange? _exchange;
    private readonly LatencyRecorder _recorder = new(KeptSamples, keepLatest: true);
    private bool _tolerateLoss;

    [ParamsSource(nameof(Transports))]
    public string Transport { get; set; } = "tcp";

    [ParamsSource(nameof(Sizes))]
    public int Size { get; set; }

    public static IEnumerable<string> Transports => SuiteSettings.Transports;

    public static IEnumerable<int> Sizes => SuiteSettings.Sizes;

    [GlobalSetup]
    public async Task SetupAsync()
    {
        var transport = TransportRegistry.Get(Transport);
        var (clientCpu, serverCpu) = SuiteSettings.Placement.Cpus();
        if (clientCpu is int cpu)
        {
            CpuAffinity.PinCurrentProcess(cpu);
        }
        var bind = EndpointOptions.With(transport.DefaultAddress(), "io", SuiteSettings.Io);
        _server = await ServerProcess.StartAsync(Transport, bind, serverCpu, line => Console.Error.WriteLine($"[server] {line}"));
        _connection = await transport.ConnectAsync(EndpointOptions.With(_server.Address, "io", SuiteSettings.Io));
        _exchange = new ClosedLoop.Exchange(_connection, Size);
        _tolerateLoss = !transport.Capabilities.Has(TransportFeatures.Reliable);
        for (int i = 0; i < 100; i++)
        {
            await _exchange.SendAsync(_tolerateLoss, CancellationToken.None); // connection warm-up, before any timing
        }
    }

    [Benchmark]
    public async ValueTask RoundTrip()
    {
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
        LatencySidecar.Write(Transport, Size, _recorder.Summarize(), LostReplies);
        if (_connection is not null)
        {
            await _connection.DisposeAsync();
        }
        if (_server is not null)
        {
            await _server.DisposeAsync();
        }
    }
}
