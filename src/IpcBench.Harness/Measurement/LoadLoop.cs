using System.Diagnostics;
using IpcBench.Contract;
using IpcBench.Kit;

namespace IpcBench.Harness.Measurement;

/// <param name="Size">Request payload size in bytes (the echo reply has the same size).</param>
/// <param name="Count">Measured requests, over every client.</param>
/// <param name="Warmup">Requests sent first and not measured (JIT, caches, connection warm-up), over every client.</param>
/// <param name="TolerateLoss">Count timeouts as errors and go on (for transports that may lose messages).</param>
/// <param name="Gap">A pause after each reply before the next request: sparse traffic, where idle waiting costs show.</param>
public sealed record LoopOptions(int Size, int Count, int Warmup, bool TolerateLoss = false, TimeSpan Gap = default)
{
    /// <summary>Connections used at once, each driven by a thread of its own.</summary>
    public int Clients { get; init; } = 1;

    /// <summary>Requests outstanding on each connection (transports that pipeline; one otherwise).</summary>
    public int InFlight { get; init; } = 1;

    /// <summary>Requests per second over every client, sent on a fixed schedule (an open loop); 0 for a closed loop.</summary>
    public double Rate { get; init; }

    /// <summary>Measure for this long instead of <see cref="Count"/> requests.</summary>
    public TimeSpan Duration { get; init; }

    /// <summary>Warm up for this long instead of <see cref="Warmup"/> requests.</summary>
    public TimeSpan WarmupDuration { get; init; }

    /// <summary>The reply's size when the server answers with a size of its own; null for an echo of the request.</summary>
    public int? ReplySize { get; init; }

    /// <summary>Request loops run at once: one per request in flight on each connection.</summary>
    public int Lanes => Clients * InFlight;
}

/// <param name="Latency">Per-request round-trip percentiles, over every request of every client.</param>
/// <param name="Errors">Requests that got no reply in time (only when loss is tolerated).</param>
/// <param name="Cost">Client CPU and allocations per measured request; its elapsed time is the measured stretch's.</param>
/// <param name="ServerCpuUsPerOp">The server's CPU time per request over the run, as it reported it (null: it did not).</param>
public sealed record LoopResult(LatencySummary Latency, long Errors, Cost Cost, double? ServerCpuUsPerOp)
{
    public double RequestsPerSecond => Latency.Count / Cost.Elapsed.TotalSeconds;

    /// <summary>The server's anatomy per request, as it reported it (null: it did not); the client's is <see cref="Cost"/>'s.</summary>
    public Results.SideAnatomy? ServerAnatomy { get; init; }

    /// <summary>The latency curve over every measured request (<see cref="LatencyRecorder.Curve"/>).</summary>
    public IReadOnlyList<PercentilePoint> Curve { get; init; } = [];

    /// <summary>A fixed-seed random subsample of the measured requests' latencies in microseconds (<see cref="LatencyRecorder.Sample"/>).</summary>
    public IReadOnlyList<double> SamplesUs { get; init; } = [];

    /// <summary>Each client's requests per second, in client order (one entry for a single client).</summary>
    public IReadOnlyList<double> ClientRequestsPerSecond { get; init; } = [];

    /// <summary>Every measured request's round trip (what <see cref="Curve"/> and <see cref="SamplesUs"/> are taken from).</summary>
    public LatencyRecorder? Recorder { get; init; }

    /// <summary>When the measured stretch began and ended, in Stopwatch ticks (comparable between processes of one machine).</summary>
    public (long Start, long End) Span { get; init; }

    /// <summary>The rate an open loop was asked for, in requests per second; null for a closed loop.</summary>
    public double? OfferedRate { get; init; }

    /// <summary>How long the warm-up took and whether the JIT was done at its end (null: none was asked for); a load's lane 0's, which waits for the server too.</summary>
    public WarmUp.Spent? WarmUpSpent { get; init; }

    /// <summary>
    /// Whether an open loop kept to its schedule: achieved at least <see cref="LoadLoop.SustainedShare"/> of the offered
    /// rate. When it did not, client or server could not keep up, and its latencies are those of a queue that grew.
    /// </summary>
    public bool? Sustained => OfferedRate is double offered ? RequestsPerSecond >= LoadLoop.SustainedShare * offered : null;
}

/// <summary>
/// Request/reply under load: <see cref="LoopOptions.Clients"/> connections, each driven by a thread of its own (and
/// <see cref="LoopOptions.InFlight"/> request loops on it), warmed up, then released together. A closed loop sends
/// the next request as soon as the reply arrives. An open loop (<see cref="LoopOptions.Rate"/>) sends on a fixed
/// schedule and times each request from the moment the schedule said to send it, so that a stall shows in the
/// percentiles of every request it delayed instead of hiding behind the one it held up (coordinated omission, as
/// wrk2 corrects it). Every reply's length and content are checked.
/// </summary>
public static class LoadLoop
{
    /// <summary>The share of its offered rate an open loop must achieve to count as sustained.</summary>
    public const double SustainedShare = 0.95;

    /// <param name="connections">One per client, <see cref="LoopOptions.Clients"/> of them, already connected.</param>
    /// <param name="progress">Told the measured share done, 0 to 1, now and then.</param>
    /// <param name="released">Awaited once every client is warmed up, before they are released: where client processes
    /// wait for each other (see <c>ipcbench ping --client-processes</c>).</param>
    public static async Task<LoopResult> RunAsync(IReadOnlyList<IConnection> connections, LoopOptions options,
        Action<double>? progress = null, CancellationToken ct = default, Func<CancellationToken, Task>? released = null)
    {
        if (connections.Count != options.Clients)
        {
            throw new ArgumentException($"{options.Clients} clients need as many connections, not {connections.Count}", nameof(connections));
        }
        var loops = Enumerable.Range(0, options.Lanes).Select(i => new RequestLoop(connections[i / options.InFlight], options, i)).ToArray();
        using var lanes = new LaneThreads(loops);
        // Lane 0 asks the server between its rounds, on connection 0 (shared with its in-flight lanes), as another request
        // of that lane; the other lanes go on until lane 0 is done and their client's JIT too, so that the server warms up
        // under the whole load. Lane 0's time is the warm-up's (the others end a round or two after it).
        WarmUp.Spent? warmUp = null;
        var leadDone = new TaskCompletionSource();
        await Task.Run(() => lanes.Run(async (loop, token) =>
        {
            if (loop.Index != 0)
            {
                await WarmUpAsync(loop, options, () => ValueTask.FromResult(leadDone.Task.IsCompleted), token).ConfigureAwait(false);
                return;
            }
            try
            {
                warmUp = await WarmUpAsync(loop, options, () => ServerStats.JitSettledAsync(connections[0], options.TolerateLoss, token), token)
                    .ConfigureAwait(false);
            }
            finally
            {
                leadDone.TrySetResult();
            }
        }, Timeout.InfiniteTimeSpan, ct), CancellationToken.None).ConfigureAwait(false);
        foreach (var loop in loops)
        {
            loop.Reset();
        }

        var server = await ServerStats.Meter.StartAsync(connections[0], options.TolerateLoss, ct).ConfigureAwait(false);
        if (released is not null)
        {
            await released(ct).ConfigureAwait(false);
        }
        var meter = CostMeter.Start();
        long start = Stopwatch.GetTimestamp();
        long deadline = options.Duration > TimeSpan.Zero ? start + StopwatchTicks.From(options.Duration) : long.MaxValue;
        long[] ends = await Task.Run(() => lanes.Run((loop, token) => loop.RunAsync(start, deadline,
            options.Duration > TimeSpan.Zero ? int.MaxValue : Share(options, loop.Index, options.Count),
            loop.Index == 0 ? progress : null, token), Timeout.InfiniteTimeSpan, ct), CancellationToken.None).ConfigureAwait(false);
        var stopped = meter.Stop(); // first: what runs after the loop (and its first JIT) is not the requests' cost

        long completed = loops.Sum(l => l.Recorder.Count);
        long end = ends.Max();
        var cost = stopped.Per(completed) with { Elapsed = Stopwatch.GetElapsedTime(start, end) };
        var serverShare = await server.StopAsync(ct).ConfigureAwait(false);
        var recorder = LatencyRecorder.Combine([.. loops.Select(l => l.Recorder)]);
        return recorder.Result(loops.Sum(l => l.Errors), cost, serverShare) with
        {
            ClientRequestsPerSecond = loops.GroupBy(l => l.Index / options.InFlight)
                .Select(client => client.Sum(l => l.Recorder.Count) / Stopwatch.GetElapsedTime(start, client.Max(l => ends[l.Index])).TotalSeconds)
                .ToArray(),
            OfferedRate = options.Rate > 0 ? options.Rate : null,
            Span = (start, end),
            WarmUpSpent = warmUp,
        };
    }

    /// <summary>The measured loop itself, at the measured rate, warmed up as <see cref="WarmUp"/> says, until <paramref name="othersDone"/> too.</summary>
    private static Task<WarmUp.Spent?> WarmUpAsync(RequestLoop loop, LoopOptions options, Func<ValueTask<bool>> othersDone, CancellationToken ct)
    {
        int requests = options.WarmupDuration > TimeSpan.Zero ? int.MaxValue // as many as the time allows
            : options.Warmup == 0 ? 0 // none asked for: none
            : Math.Max(1, Share(options, loop.Index, options.Warmup)); // at least one, so that every lane waits until the JIT is done
        return WarmUp.RunAsync(requests, options.WarmupDuration, (deadline, share) => loop.RunAsync(Stopwatch.GetTimestamp(), deadline, share, null, ct),
            othersDone);
    }

    /// <summary>Lane <paramref name="index"/>'s part of <paramref name="total"/>: an equal share, the remainder to the first lanes.</summary>
    private static int Share(LoopOptions options, int index, int total) => total / options.Lanes + (index < total % options.Lanes ? 1 : 0);
}
