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
        var warmUp = await WarmUp.RunAsync(options.Warmup, TimeSpan.Zero, async () => await CycleAsync(transport, address, request, reply, ct).ConfigureAwait(false),
            () => AskServerAsync(transport, address, ServerStats.JitSettledAsync, ct)).ConfigureAwait(false);

        var serverBefore = await AskServerAsync(transport, address, ServerStats.QueryAsync, ct).ConfigureAwait(false);
        var recorder = new LatencyRecorder();
        var meter = CostMeter.Start();
        for (int i = 0; i < options.Count; i++)
        {
            Payload.Stamp(request, i);
            recorder.Record(await CycleAsync(transport, address, request, reply, ct).ConfigureAwait(false));
            if (options.Gap > TimeSpan.Zero)
            {
                Thread.Sleep(options.Gap);
            }
            if ((i & 255) == 255)
            {
                progress?.Invoke((i + 1.0) / options.Count);
            }
        }
        var cost = meter.Stop(options.Count);
        var serverAfter = await AskServerAsync(transport, address, ServerStats.QueryAsync, ct).ConfigureAwait(false);
        return recorder.Result(0, cost, ServerSharePerCycle(serverBefore, serverAfter, options.Count)) with { WarmUpSpent = warmUp };
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

    /// <summary>
    /// Asks the server on a connection of its own, closed again as a cycle's is (<see cref="ServerStats.QueryAsync"/>, or
    /// <see cref="ServerStats.JitSettledAsync"/> for a warm-up): the loops whose cycles keep no connection.
    /// </summary>
    public static async ValueTask<T> AskServerAsync<T>(ITransport transport, Uri address,
        Func<IConnection, bool, CancellationToken, ValueTask<T>> ask, CancellationToken ct)
    {
        await using var connection = await transport.ConnectAsync(address, ct).ConfigureAwait(false);
        return await ask(connection, transport.Capabilities.MayLoseMessages, ct).ConfigureAwait(false);
    }
}
