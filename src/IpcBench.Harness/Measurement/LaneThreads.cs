using System.Diagnostics;
using System.Runtime.ExceptionServices;
using IpcBench.Contract;
using IpcBench.Kit.Processes;

namespace IpcBench.Harness.Measurement;

/// <summary>
/// Request loops, each on a thread of its own, run in steps: a step releases every lane at once and is done when the
/// last lane is; the first lane to fail stops the others, and its failure is the step's. <see cref="LoadLoop"/> runs two
/// steps (warm-up, then the measured stretch); the suite's throughput benchmark one per invocation. A thread of its own
/// keeps a lane whose transport completes inline from sharing a pool thread with another lane.
/// </summary>
public sealed class LaneThreads : IDisposable
{
    /// <summary>How long <see cref="Dispose"/> waits for the lanes' threads to end.</summary>
    private static readonly TimeSpan StopTimeout = TimeSpan.FromSeconds(10);

    private readonly Lane[] _lanes;
    private Func<RequestLoop, CancellationToken, Task> _step = static (_, _) => Task.CompletedTask;
    private CancellationTokenSource? _stop;
    private readonly CountdownEvent _done;
    private volatile bool _closing;

    public LaneThreads(IReadOnlyList<RequestLoop> loops)
    {
        RequestLoop.ReserveThreadPool(loops.Count);
        _done = new CountdownEvent(loops.Count);
        _lanes = [.. loops.Select(loop => new Lane(loop, this))];
    }

    /// <summary>
    /// Runs <paramref name="step"/> on every lane at once and waits for all of them, <paramref name="timeout"/> at most
    /// (infinite: a step bounded by its own requests' timeouts). Returns when each lane finished, in Stopwatch ticks, in
    /// lane order. A step that times out leaves its lanes stopping: the lanes are of no further use, only to dispose.
    /// Blocking, and woken by the last lane directly: an await would add a thread-pool wake-up to every round of the
    /// throughput benchmark, on a VM where waking an idle CPU takes tens of microseconds. So never call it in an await's
    /// continuation, which may run on a transport's reader thread (Tmds.DBus completes a reply on the thread that read
    /// it): the lanes would wait for that thread, and it for them. A thread of the caller's own, or Task.Run's.
    /// </summary>
    public long[] Run(Func<RequestLoop, CancellationToken, Task> step, TimeSpan timeout, CancellationToken ct)
    {
        var stop = CancellationTokenSource.CreateLinkedTokenSource(ct);
        (_step, _stop) = (step, stop);
        _done.Reset();
        foreach (var lane in _lanes)
        {
            lane.Release();
        }
        if (!_done.Wait(timeout))
        {
            stop.Cancel(); // not disposed: a lane still running may read it
            throw new TransportTimeoutException($"{_lanes.Length} client lanes did not finish within {timeout.TotalSeconds:0} s");
        }
        stop.Dispose();
        ct.ThrowIfCancellationRequested();
        // The first failure that is not a lane stopping because another failed.
        if (_lanes.Select(l => l.Failure).OfType<Exception>().OrderBy(e => e is OperationCanceledException).FirstOrDefault() is { } failure)
        {
            ExceptionDispatchInfo.Throw(failure);
        }
        return [.. _lanes.Select(l => l.End)];
    }

    public void Dispose()
    {
        _closing = true;
        foreach (var lane in _lanes)
        {
            lane.Release();
        }
        if (Task.WaitAll([.. _lanes.Select(l => l.Thread)], StopTimeout))
        {
            _done.Dispose(); // else a lane still stopping may signal it
        }
    }

    private sealed class Lane
    {
        private readonly SemaphoreSlim _go = new(0);

        public Lane(RequestLoop loop, LaneThreads owner)
        {
            Loop = loop;
            Thread = DedicatedThread.Start($"ipcbench client {loop.Index}", () => Run(owner));
        }

        public RequestLoop Loop { get; }

        public Task Thread { get; }

        public Exception? Failure { get; private set; }

        /// <summary>When it finished its last step, in Stopwatch ticks.</summary>
        public long End { get; private set; }

        public void Release() => _go.Release();

        private void Run(LaneThreads owner)
        {
            while (true)
            {
                _go.Wait();
                if (owner._closing)
                {
                    return;
                }
                Failure = null;
                var stop = owner._stop!;
                try
                {
                    // Blocking: a lane whose transport completes inline keeps its own thread.
                    owner._step(Loop, stop.Token).GetAwaiter().GetResult();
                }
                catch (Exception e)
                {
                    Failure = e;
                    stop.Cancel(); // the other lanes stop too, instead of finishing their share
                }
                End = Stopwatch.GetTimestamp();
                owner._done.Signal();
            }
        }
    }
}
