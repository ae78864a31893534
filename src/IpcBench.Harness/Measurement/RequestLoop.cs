using System.Diagnostics;
using IpcBench.Contract;

namespace IpcBench.Harness.Measurement;

/// <summary>
/// One request loop on one connection: the next request as soon as the reply is in (a closed loop), or on a fixed
/// schedule (an open loop, <see cref="LoopOptions.Rate"/>), every reply checked and its round trip recorded. Where loss
/// is tolerated a lost reply is counted and the loop goes on, until <see cref="MaxConsecutiveLosses"/> in a row. Each
/// lane of <see cref="LoadLoop"/> runs one, and so does each client of the suite's throughput benchmark.
/// </summary>
/// <param name="index">Which lane of <see cref="LoopOptions.Lanes"/> this is: its request numbers and its place in an open loop's schedule.</param>
public sealed class RequestLoop(IConnection connection, LoopOptions options, int index)
{
    /// <summary>Consecutive lost replies after which the peer is taken for gone.</summary>
    public const int MaxConsecutiveLosses = 10;

    private readonly Exchange _exchange = new(connection, options.Size, firstNumber: (long)index << 40, options.ReplySize);

    public int Index => index;

    public LatencyRecorder Recorder { get; } = new();

    public long Errors { get; private set; }

    /// <summary>Forgets what was recorded (a warm-up's requests).</summary>
    public void Reset()
    {
        Errors = 0;
        Recorder.Reset();
    }

    /// <summary>
    /// Requests from <paramref name="start"/> until <paramref name="share"/> are sent or <paramref name="deadline"/>
    /// passes (<see cref="long.MaxValue"/>: none), each recorded; <paramref name="progress"/> is told the share done now and then.
    /// </summary>
    public async Task RunAsync(long start, long deadline, int share, Action<double>? progress, CancellationToken ct)
    {
        bool timed = deadline != long.MaxValue;
        // An open loop's schedule: this lane's requests at a fixed interval, the lanes staggered across it.
        double interval = options.Rate > 0 ? Stopwatch.Frequency * options.Lanes / options.Rate : 0;
        double intended = start + interval * index / options.Lanes;
        int consecutiveLosses = 0;
        for (int n = 0; n < share; n++)
        {
            ct.ThrowIfCancellationRequested();
            // A run bound by time ends at its deadline even when an open loop is behind: the requests it could
            // not send show as an achieved rate below the offered one.
            if (timed && (Stopwatch.GetTimestamp() >= deadline || intended >= deadline))
            {
                break;
            }
            long since = 0;
            if (interval > 0)
            {
                since = (long)intended;
                await Schedule.WaitUntilAsync(since, ct).ConfigureAwait(false);
                intended += interval;
            }
            long ticks = await _exchange.SendAsync(options.TolerateLoss, ct, since).ConfigureAwait(false);
            if (ticks < 0)
            {
                Errors++;
                if (++consecutiveLosses >= MaxConsecutiveLosses)
                {
                    throw new TransportException($"{MaxConsecutiveLosses} replies in a row were lost: the server seems gone");
                }
                continue;
            }
            consecutiveLosses = 0;
            Recorder.Record(ticks);
            if (options.Gap > TimeSpan.Zero)
            {
                Thread.Sleep(options.Gap);
            }
            if ((n & 1023) == 1023)
            {
                progress?.Invoke(timed ? (double)(Stopwatch.GetTimestamp() - start) / (deadline - start) : (n + 1.0) / share);
            }
        }
    }

    /// <summary>
    /// Makes room in the thread pool for <paramref name="loops"/> loops on threads of their own: those of transports that
    /// complete on the pool block there (while an open loop waits its turn, or a round waits for its release).
    /// </summary>
    public static void ReserveThreadPool(int loops)
    {
        ThreadPool.GetMinThreads(out int workers, out int io);
        ThreadPool.SetMinThreads(Math.Max(workers, loops + Environment.ProcessorCount), io);
    }
}
