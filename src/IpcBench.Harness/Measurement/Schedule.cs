using System.Diagnostics;
using System.Runtime.InteropServices;

namespace IpcBench.Harness.Measurement;

/// <summary>
/// Waiting for an open loop's next send time: sleep until a millisecond before it, then yield the CPU until it comes
/// (a server on the same core still runs). Sleeping closer would be cheaper but late: a wake-up from nanosleep on a
/// busy or virtual machine comes tens to hundreds of microseconds after its time, and an open loop counts every
/// microseconds a request goes out late as latency (measured side by side: with a 100 us margin, tcp at half its
/// maximum rate had a p99 of 415 us against 72 us closed-loop). Elsewhere than Linux the OS's sleep is no finer than a
/// millisecond, so the margin is two.
/// </summary>
internal static partial class Schedule
{
    private static readonly long SleepMargin = Stopwatch.Frequency / (OperatingSystem.IsLinux() ? 1_000 : 500); // 1 ms, 2 ms

    public static async ValueTask WaitUntilAsync(long target, CancellationToken ct)
    {
        while (target - Stopwatch.GetTimestamp() is var left && left > 0)
        {
            bool pooled = Thread.CurrentThread.IsThreadPoolThread;
            if (left > SleepMargin)
            {
                ct.ThrowIfCancellationRequested();
                if (pooled)
                {
                    await Task.Delay(TimeSpan.FromMilliseconds(1), ct).ConfigureAwait(false);
                }
                else
                {
                    Sleep(left - SleepMargin);
                }
            }
            else if (pooled)
            {
                // A lane whose transport completes on the thread pool is on a pool thread now: give the pool's other
                // work (the transport's own reads) its turn instead of holding the thread.
                await Task.Yield();
            }
            else
            {
                Thread.Yield();
            }
        }
    }

    private static void Sleep(long ticks)
    {
        if (!OperatingSystem.IsLinux())
        {
            Thread.Sleep(1);
            return;
        }
        long ns = (long)(ticks * (1e9 / Stopwatch.Frequency));
        var request = new TimeSpec(ns / 1_000_000_000, ns % 1_000_000_000);
        NanoSleep(request, IntPtr.Zero); // an early wake-up (a signal) only means one more turn of the loop
    }

    [StructLayout(LayoutKind.Sequential)]
    private readonly record struct TimeSpec(long Seconds, long Nanoseconds);

    [LibraryImport("libc", EntryPoint = "nanosleep")]
    private static partial int NanoSleep(in TimeSpec request, IntPtr remaining);
}
