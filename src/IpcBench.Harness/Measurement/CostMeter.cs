using System.Diagnostics;
using IpcBench.Harness.Results;

namespace IpcBench.Harness.Measurement;

/// <summary>The client's own cost over a stretch of requests: CPU time (user + system), bytes allocated, and its anatomy.</summary>
public readonly struct CostMeter
{
    private readonly ProcessCounters _start;
    private readonly long _started;

    private CostMeter(ProcessCounters start, long started) => (_start, _started) = (start, started);

    public static CostMeter Start()
    {
        // A first reading JITs the reader, tens of milliseconds of CPU; taken twice, the second's CPU times are read
        // after all of it, so the stretch starts clean.
        ProcessCounters.Read();
        return new(ProcessCounters.Read(), Stopwatch.GetTimestamp());
    }

    /// <summary>The stretch's end, read at once (the CPU times first); <see cref="Stopped.Per"/> divides it by its operations.</summary>
    public Stopped Stop() => new(_start, ProcessCounters.Read(cpuFirst: true), Stopwatch.GetElapsedTime(_started));

    public Cost Stop(long operations) => Stop().Per(operations);

    public readonly record struct Stopped(ProcessCounters Start, ProcessCounters End, TimeSpan Elapsed)
    {
        public Cost Per(long operations)
        {
            long n = Math.Max(1, operations);
            return new Cost(Elapsed, (double)(End.CpuUs - Start.CpuUs) / n, (double)(End.AllocatedBytes - Start.AllocatedBytes) / n)
            {
                Anatomy = SideAnatomy.Between(Start, End, End.ThreadsRanSince(Start), operations),
            };
        }
    }
}

/// <param name="Elapsed">Wall-clock time of the stretch.</param>
/// <param name="CpuUsPerOp">Process CPU time per operation, every thread, user plus system.</param>
/// <param name="AllocatedBytesPerOp">Managed bytes allocated per operation, every thread.</param>
public readonly record struct Cost(TimeSpan Elapsed, double CpuUsPerOp, double AllocatedBytesPerOp)
{
    /// <summary>The client process's anatomy over the stretch, per operation (null: not measured, as for several client processes).</summary>
    public SideAnatomy? Anatomy { get; init; }
}
