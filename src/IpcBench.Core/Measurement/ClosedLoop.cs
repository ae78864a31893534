using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace IpcBench.Core.Measurement;

/// <param name="Size">Request payload size in bytes (the echo reply has the same size).</param>
/// <param name="Count">Measured requests.</param>
/// <param name="Warmup">Requests sent first and not measured (JIT, caches, connection warm-up).</param>
/// <param name="TolerateLoss">Count timeouts as errors and go on (for transports that may lose messages).</param>
/// <param name="Gap">A pause after each reply before the next request: sparse traffic, where idle waiting costs show.</param>
public sealed record LoopOptions(int Size, int Count, int Warmup, bool TolerateLoss = false, TimeSpan Gap = default);

/// <param name="Latency">Per-request round-trip percentiles.</param>
/// <param name="Errors">Requests that got no reply in time (only when loss is tolerated).</param>
/// <param name="Cost">Client CPU and allocations per measured request.</param>
/// <param name="ServerCpuUsPerOp">The server's CPU time per request over the run, as it reported it (null: it did not).</param>
public sealed record LoopResult(LatencySummary Latency, long Errors, Cost Cost, double? ServerCpuUsPerOp)
{
    public double RequestsPerSecond => Latency.Count / Cost.Elapsed.TotalSeconds;

    /// <summary>The latency curve over every measured request (<see cref="LatencyRecorder.Curve"/>).</summary>
    public IReadOnlyList<PercentilePoint> Curve { get; init; } = [];

    /// <summary>A fixed-seed random subsample of the measured requests' latencies in microseconds (<see cref="LatencyRecorder.Sample"/>).</summary>
    public IReadOnlyList<double> SamplesUs { get; init; } = [];
}

/// <summary>A reply that is not the echo of its request: the measurement is invalid.</summary>
public sealed class ReplyMismatchException(string message) : Exception(message);

/// <summary>
/// Closed-loop request/reply: one request in flight, the next sent as soon as the reply arrives.
/// Every round trip is timed, every reply's length and content checked.
/// </summary>
public static class ClosedLoop
{
    /// <summary>Consecutive lost replies after which the peer is taken for gone.</summary>
    public const int MaxConsecutiveLosses = 10;

    /// <summary>How long this process's JIT must have compiled nothing before warm-up ends: over the runtime's
    /// 100 ms call-counting delay, so that a tier-up still to come is not mistaken for quiet.</summary>
    public static readonly TimeSpan JitQuiet = TimeSpan.FromMilliseconds(250);

    /// <summary>The longest warm-up may go on waiting for the JIT to settle.</summary>
    public static readonly TimeSpan JitSettleLimit = TimeSpan.FromSeconds(10);

    /// <summary>
    /// The requests asked for, then more until this process's JIT has been quiet for <see cref="JitQuiet"/>. Tiered
    /// compilation recompiles the hot path (and, with dynamic PGO, instruments it first) in the background during
    /// the first second or so; on a pinned CPU each recompilation preempts the loop, and it used to land in the
    /// measured requests as p99.9 two to three times the C yardstick's and milliseconds of max. A long-running
    /// service is past that; so is the measurement now. <c>--warmup 0</c> still means none.
    /// </summary>
    private static async Task WarmUpAsync(Exchange exchange, LoopOptions options, CancellationToken ct)
    {
        for (int i = 0; i < options.Warmup; i++)
        {
            ct.ThrowIfCancellationRequested();
            await exchange.SendAsync(options.TolerateLoss, ct).ConfigureAwait(false);
        }
        if (options.Warmup == 0)
        {
            return;
        }
        long start = Stopwatch.GetTimestamp(), quietSince = start;
        long compiled = System.Runtime.JitInfo.GetCompiledMethodCount();
        while (Stopwatch.GetElapsedTime(quietSince) < JitQuiet && Stopwatch.GetElapsedTime(start) < JitSettleLimit)
        {
            ct.ThrowIfCancellationRequested();
            await exchange.SendAsync(options.TolerateLoss, ct).ConfigureAwait(false);
            if (System.Runtime.JitInfo.GetCompiledMethodCount() is var now && now != compiled)
            {
                (compiled, quietSince) = (now, Stopwatch.GetTimestamp());
            }
        }
    }

    public static async Task<LoopResult> RunAsync(IConnection connection, LoopOptions options,
        Action<int>? progress = null, CancellationToken ct = default)
    {
        var exchange = new Exchange(connection, options.Size);
        await WarmUpAsync(exchange, options, ct).ConfigureAwait(false);

        var serverBefore = await ServerStats.QueryAsync(connection, ct).ConfigureAwait(false);
        var recorder = new LatencyRecorder(options.Count);
        long errors = 0;
        int consecutiveLosses = 0;
        var meter = CostMeter.Start();
        for (int i = 0; i < options.Count; i++)
        {
            ct.ThrowIfCancellationRequested();
            long ticks = await exchange.SendAsync(options.TolerateLoss, ct).ConfigureAwait(false);
            if (ticks < 0)
            {
                errors++;
                if (++consecutiveLosses >= MaxConsecutiveLosses)
                {
                    throw new TransportException($"{MaxConsecutiveLosses} replies in a row were lost: the server seems gone");
                }
                continue;
            }
            consecutiveLosses = 0;
            recorder.Record(ticks);
            if (options.Gap > TimeSpan.Zero)
            {
                Thread.Sleep(options.Gap);
            }
            if ((i & 4095) == 4095)
            {
                progress?.Invoke(i + 1);
            }
        }
        var cost = meter.Stop(options.Count);
        var serverAfter = await ServerStats.QueryAsync(connection, ct).ConfigureAwait(false);
        double? serverCpu = serverBefore is { } b && serverAfter is { } a ? a.CpuUsPerRequestSince(b) : null;
        return new LoopResult(recorder.Summarize(), errors, cost, serverCpu)
        {
            Curve = recorder.Curve(),
            SamplesUs = recorder.Sample(),
        };
    }

    /// <summary>One request and its checked reply, on buffers allocated once.</summary>
    public sealed class Exchange
    {
        private readonly IConnection _connection;
        private readonly byte[] _request;
        private readonly byte[] _reply;
        private long _number;

        public Exchange(IConnection connection, int size)
        {
            _connection = connection;
            _request = new byte[size];
            _reply = new byte[size];
            Payload.Fill(_request);
        }

        /// <summary>Sends one request; returns its round trip in Stopwatch ticks, or -1 if it was lost and loss is tolerated.</summary>
        [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
        public async ValueTask<long> SendAsync(bool tolerateLoss, CancellationToken ct)
        {
            Payload.Stamp(_request, ++_number);
            long start = Stopwatch.GetTimestamp();
            int length;
            try
            {
                length = await _connection.RequestAsync(_request, _reply, ct).ConfigureAwait(false);
            }
            catch (TransportTimeoutException) when (tolerateLoss)
            {
                return -1;
            }
            long ticks = Stopwatch.GetTimestamp() - start;
            if (Payload.CheckEcho(_request, _reply.AsSpan(0, length), content: true) is { } problem)
            {
                throw new ReplyMismatchException($"request {_number}: {problem}");
            }
            return ticks;
        }
    }
}
