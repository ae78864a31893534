using System.Diagnostics;
using System.Runtime.InteropServices;

namespace IpcBench.Core.Measurement;

/// <summary>
/// Waiting for an open loop's next send time without spinning a core away from the server: sleep until shortly
/// before it, then yield until it comes. Linux sleeps to within the timer slack (50 us by default) with nanosleep;
/// elsewhere the OS's sleep is no finer than a millisecond, so the wait sleeps only while more than that is left.
/// </summary>
internal static partial class Schedule
{
    private static readonly long SleepMargin = Stopwatch.Frequency / (OperatingSystem.IsLinux() ? 10_000 : 500); // 100 us, 2 ms

    public static void WaitUntil(long target, CancellationToken ct)
    {
        while (target - Stopwatch.GetTimestamp() is var left && left > 0)
        {
            if (left > SleepMargin)
            {
                ct.ThrowIfCancellationRequested();
                Sleep(left - SleepMargin);
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
