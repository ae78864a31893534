using System.Diagnostics;
using IpcBench.Contract;

namespace IpcBench.Harness.Measurement;

/// <summary>
/// Cold start, as netperf's TCP_CRR measures it: connect, one request and its checked reply, close;
/// each whole cycle timed. What a client that opens a connection (or a gRPC channel) per call pays,
/// apart from the steady state that <see cref="LoadLoop"/> measures.
/// </summary>
public static class ConnectLoop
{
    public static async Task<LoopResult> RunAsync(ITransport transport, Uri address, LoopOptions options,
        Action<double>? progress = null, CancellationToken ct = default)
    {
        byte[] request = new byte[options.Size];
        byte[] reply = new byte[options.Size];
        Payload.Fill(request);
        // The warm-up rehearses the measurement, meters and all, as LoadLoop's does (the server's stats in its first round
        // only): nothing the measured cycles run is new to the JIT when they start.
        var recorder = new LatencyRecorder();
        Action<double>? warmingProgress = progress is null ? null : _ => progress(0);
        int rounds = 0;
        await WarmUp.RunAsync(options.Warmup, TimeSpan.Zero, (deadline, count) => MeasureAsync(transport, address, request, reply, recorder, options,
            count, deadline, warmingProgress, rehearsal: true, meterServer: rounds++ == 0, ct)).ConfigureAwait(false);
        return (await MeasureAsync(transport, address, request, reply, recorder, options, options.Count, long.MaxValue, progress,
            rehearsal: false, meterServer: true, ct).ConfigureAwait(false))!;
    }

    /// <summary>
    /// <paramref name="count"/> cycles (or until <paramref name="deadline"/>), the client's and (with
    /// <paramref name="meterServer"/>) the server's costs around them; a <paramref name="rehearsal"/> stops where the
    /// cycles end, with no result.
    /// </summary>
    private static async Task<LoopResult?> MeasureAsync(ITransport transport, Uri address, byte[] request, byte[] reply, LatencyRecorder recorder,
        LoopOptions options, int count, long deadline, Action<double>? progress, bool rehearsal, bool meterServer, CancellationToken ct)
    {
        recorder.Reset(rehearsal);
        var serverBefore = meterServer ? await QueryServerAsync(transport, address, ct).ConfigureAwait(false) : null;
        var meter = CostMeter.Start();
        int cycles = 0;
        for (; cycles < count && Stopwatch.GetTimestamp() < deadline; cycles++)
        {
            Payload.Stamp(request, cycles);
            recorder.Record(await CycleAsync(transport, address, request, reply, ct).ConfigureAwait(false));
            if (options.Gap > TimeSpan.Zero)
            {
                Thread.Sleep(options.Gap);
            }
            if ((cycles & 255) == 255)
            {
                progress?.Invoke((cycles + 1.0) / count);
            }
        }
        var cost = meter.Stop(cycles);
        if (rehearsal)
        {
            return null;
        }
        var serverAfter = await QueryServerAsync(transport, address, ct).ConfigureAwait(false);
        return recorder.Result(0, cost, ServerSharePerCycle(serverBefore, serverAfter, cycles));
    }

    /// <summary>
    /// The server's share per cycle, not per request: a cycle may carry a transport's own connect probe besides its one
    /// request. Null unless both stats requests were answered.
    /// </summary>
    public static ServerStats.ServerShare? ServerSharePerCycle(ServerStats.Snapshot? before, ServerStats.Snapshot? after, long cycles) =>
        before is { } b && after is { } a ? a.ShareSince(b, cycles) : null;

    /// <summary>One connect, request, checked reply, close; returns its duration in Stopwatch ticks.</summary>
    public static async Task<long> CycleAsync(ITransport transport, Uri address, byte[] request, byte[] reply, CancellationToken ct)
    {
        long start = Stopwatch.GetTimestamp();
        var connection = await transport.ConnectAsync(address, ct).ConfigureAwait(false);
        int length;
        try
        {
            length = await connection.RequestAsync(request, reply, ct).ConfigureAwait(false);
        }
        finally
        {
            await connection.DisposeAsync().ConfigureAwait(false);
        }
        long ticks = Stopwatch.GetTimestamp() - start;
        if (Payload.CheckEcho(request, reply.AsSpan(0, length), content: true) is { } problem)
        {
            throw new ReplyMismatchException(problem);
        }
        return ticks;
    }

    /// <summary>The server's stats, asked on a connection of their own (closed again, as a cycle's is).</summary>
    public static async Task<ServerStats.Snapshot?> QueryServerAsync(ITransport transport, Uri address, CancellationToken ct)
    {
        await using var connection = await transport.ConnectAsync(address, ct).ConfigureAwait(false);
        return await ServerStats.QueryAsync(connection, transport.Capabilities.MayLoseMessages, ct).ConfigureAwait(false);
    }
}
