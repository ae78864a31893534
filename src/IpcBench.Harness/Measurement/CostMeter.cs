using System.Diagnostics;

namespace IpcBench.Harness.Measurement;

/// <summary>The client's own cost over a stretch of requests: CPU time (user + system) and bytes allocated.</summary>
public readonly struct CostMeter
{
    private readonly TimeSpan _cpu;
    private readonly long _allocated;
    private readonly long _started;

    private CostMeter(TimeSpan cpu, long allocated, long started) => (_cpu, _allocated, _started) = (cpu, allocated, started);

    public static CostMeter Start() => new(CurrentCpu(), GC.GetTotalAllocatedBytes(precise: true), Stopwatch.GetTimestamp());

    public Cost Stop(long operations)
    {
        var elapsed = Stopwatch.GetElapsedTime(_started);
        long allocated = GC.GetTotalAllocatedBytes(precise: true) - _allocated;
        var cpu = CurrentCpu() - _cpu;
        long n = Math.Max(1, operations);
        return new Cost(elapsed, cpu.TotalMicroseconds / n, (double)allocated / n);
    }

    private static TimeSpan CurrentCpu()
    {
        using var self = Process.GetCurrentProcess();
        return self.TotalProcessorTime;
    }
}

/// <param name="Elapsed">Wall-clock time of the stretch.</param>
/// <param name="CpuUsPerOp">Process CPU time per operation, every thread, user plus system.</param>
/// <param name="AllocatedBytesPerOp">Managed bytes allocated per operation, every thread.</param>
public readonly record struct Cost(TimeSpan Elapsed, double CpuUsPerOp, double AllocatedBytesPerOp);
