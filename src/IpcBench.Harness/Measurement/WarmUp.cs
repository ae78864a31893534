using System.Diagnostics;
using IpcBench.Kit;

namespace IpcBench.Harness.Measurement;

/// <summary>
/// The one warm-up policy, of ping's loops and the suite's benchmarks alike: the requests asked for (or the time), then
/// on in short rounds until this process's JIT has been done with what it ran for <see cref="JitQuiet"/>
/// (<see cref="TieringMonitor"/>: nothing compiled, none of the runtime's tier-1 work waiting or running). Tiered compilation
/// recompiles the hot path (and, with dynamic PGO, instruments it first, and replaces a long loop on the stack) in the
/// background during the first second or so; on a pinned CPU each recompilation preempts the loop, and it used to land
/// in the measured requests as p99.9 two to three times the C yardstick's and milliseconds of max (and, in an open
/// loop, in the p99 of every request queued behind it). A long-running service is past that; so is the measurement.
/// The server's JIT too, where the caller can ask it (<see cref="ServerStats.JitSettledAsync"/>): a grpc server still at
/// it when 5,000 requests began spent twice its settled CPU a request on them (docs/warm-up.md).
/// No warm-up at all still means none.
/// </summary>
public static class WarmUp
{
    /// <summary>
    /// How long a warm-up took: the part asked for, then the wait for the JIT (the client's and, where asked, the
    /// server's), and whether it was done then or the wait ran to <see cref="JitSettleLimit"/>.
    /// </summary>
    public readonly record struct Spent(TimeSpan Asked, TimeSpan JitWait, bool JitSettled)
    {
        public override string ToString() => FormattableString.Invariant($"warm-up {Asked.TotalMilliseconds:0} ms as asked, then {JitWait.TotalMilliseconds:0} ms ")
            + (JitSettled ? "until the JIT was done" : $"waiting for the JIT, which was not done by the {JitSettleLimit.TotalSeconds:0} s bound");
    }

    /// <summary>How long a process's JIT must have been done before warm-up ends: over the runtime's default 100 ms
    /// call-counting delay (the measured processes run with 10 ms, src/Measured.props; a margin all the same).</summary>
    public static readonly TimeSpan JitQuiet = TimeSpan.FromMilliseconds(250);

    /// <summary>The longest warm-up may go on waiting for the JIT to settle.</summary>
    public static readonly TimeSpan JitSettleLimit = TimeSpan.FromSeconds(10);

    /// <summary>How long each round of the wait for the JIT runs.</summary>
    private static readonly TimeSpan JitRound = TimeSpan.FromMilliseconds(20);

    /// <param name="requests">How many requests to warm up with.</param>
    /// <param name="duration">The longest that may take; zero for no bound.</param>
    /// <param name="run">Sends requests until the deadline (Stopwatch ticks) passes or the count is sent, whichever is first.</param>
    /// <param name="othersDone">Asks, between rounds, whether what else must warm up is done: the server's JIT
    /// (<see cref="ServerStats.JitSettledAsync"/>), or for a load's other lanes the lane that asks it (null: nothing else).</param>
    /// <returns>How long it took; null when no warm-up was asked for.</returns>
    public static async Task<Spent?> RunAsync(int requests, TimeSpan duration, Func<long, int, Task> run, Func<ValueTask<bool>>? othersDone = null)
    {
        if (requests == 0)
        {
            return null;
        }
        var tiering = TieringMonitor.Process;
        long begin = Stopwatch.GetTimestamp();
        await run(duration > TimeSpan.Zero ? begin + StopwatchTicks.From(duration) : long.MaxValue, requests).ConfigureAwait(false);
        long asked = Stopwatch.GetTimestamp();
        // Settled twice on end, a round apart: the runtime's events arrive some milliseconds late (TieringMonitor).
        int settled = 0;
        while (Stopwatch.GetElapsedTime(begin) < JitSettleLimit)
        {
            // The server is asked every round, whatever this process's state: its monitor reads its compiled count when asked.
            bool othersSettled = othersDone is null || await othersDone().ConfigureAwait(false);
            settled = tiering.Settled(JitQuiet) && othersSettled ? settled + 1 : 0;
            if (settled == 2)
            {
                break;
            }
            await run(StopwatchTicks.FromNow(JitRound), int.MaxValue).ConfigureAwait(false);
        }
        return new Spent(Stopwatch.GetElapsedTime(begin, asked), Stopwatch.GetElapsedTime(asked), settled == 2);
    }

    /// <summary><see cref="RunAsync(int, TimeSpan, Func{long, int, Task}, Func{ValueTask{bool}})"/> for a warm-up made of whole steps (a request, a connect cycle, a round of every client).</summary>
    public static Task<Spent?> RunAsync(int steps, TimeSpan duration, Func<ValueTask> step, Func<ValueTask<bool>>? othersDone = null) =>
        RunAsync(steps, duration, async (deadline, count) =>
        {
            for (int i = 0; i < count && Stopwatch.GetTimestamp() < deadline; i++)
            {
                await step().ConfigureAwait(false);
            }
        }, othersDone);
}
