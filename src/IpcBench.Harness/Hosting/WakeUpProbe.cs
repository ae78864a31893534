using System.Diagnostics;
using System.Runtime.InteropServices;
using IpcBench.Harness.Measurement;
using IpcBench.Kit;

namespace IpcBench.Harness.Hosting;

/// <summary>
/// What handing the turn to a sleeping thread costs here, one way, in microseconds: half the median round trip of two
/// threads that pass a turn back and forth through a futex, each asleep until the other wakes it. A blocking transport's
/// round trip pays two such hand-offs besides its own work.
/// </summary>
/// <param name="OneCpuUs">Both threads on one CPU: a context switch, no CPU woken.</param>
/// <param name="CrossCpuIdleUs">On two CPUs with nothing else running: each hand-off wakes a CPU that went idle (null: one CPU only).</param>
/// <param name="CrossCpuAwakeUs">On two CPUs, each kept awake by a SCHED_IDLE busy loop, which runs only when nothing else wants the CPU.</param>
public sealed record WakeUpCost(double OneCpuUs, double? CrossCpuIdleUs, double? CrossCpuAwakeUs);

/// <summary>Measures <see cref="WakeUpCost"/> (Linux; about a second at most).</summary>
public static unsafe partial class WakeUpProbe
{
    private const int RoundTrips = 2_000;
    private const int WarmUp = 200;
    private static readonly TimeSpan PhaseLimit = TimeSpan.FromSeconds(3);

    /// <summary>The costs on the first two CPUs this process may use, or null where they cannot be measured.</summary>
    public static WakeUpCost? Measure()
    {
        if (!Futex.IsSupported)
        {
            return null;
        }
        var cpus = CpuAffinity.UsableCpus();
        if (HandOffUs(cpus[0], cpus[0], keepAwake: false) is not { } oneCpu)
        {
            return null;
        }
        return cpus.Count < 2
            ? new WakeUpCost(oneCpu, null, null)
            : new WakeUpCost(oneCpu, HandOffUs(cpus[0], cpus[1], keepAwake: false), HandOffUs(cpus[0], cpus[1], keepAwake: true));
    }

    /// <summary>Half the median round trip between a thread on <paramref name="cpuA"/> and one on <paramref name="cpuB"/>; null if it could not be had.</summary>
    private static double? HandOffUs(int cpuA, int cpuB, bool keepAwake)
    {
        // The turn: 1 is the echo thread's, 0 the timing thread's, -1 tells the echo thread to stop.
        int* turn = (int*)NativeMemory.AllocZeroed(sizeof(int));
        long deadline = StopwatchTicks.FromNow(PhaseLimit);
        using var stopSpinning = new CancellationTokenSource();
        int notAwake = 0;
        var spinners = keepAwake
            ? new[] { cpuA, cpuB }.Distinct().Select(cpu => Start(() =>
            {
                if (!Spin(cpu, stopSpinning.Token)) Interlocked.Exchange(ref notAwake, 1);
            })).ToList()
            : [];
        long[]? roundTrips = null;
        var echo = Start(() => Echo(cpuB, turn, deadline));
        var timer = Start(() => roundTrips = Time(cpuA, turn, deadline));
        bool ended = timer.Join(PhaseLimit + TimeSpan.FromSeconds(1));
        stopSpinning.Cancel();
        spinners.ForEach(s => s.Join(TimeSpan.FromSeconds(1)));
        if (echo.Join(PhaseLimit + TimeSpan.FromSeconds(1)) && ended)
        {
            NativeMemory.Free(turn); // else a thread may still touch it: leaked, not freed under it
        }
        if (roundTrips is null || notAwake != 0)
        {
            return null;
        }
        Array.Sort(roundTrips);
        return roundTrips[roundTrips.Length / 2] * 1e6 / Stopwatch.Frequency / 2;
    }

    private static Thread Start(Action body)
    {
        var thread = new Thread(() => body()) { IsBackground = true, Name = "ipcbench wake-up probe" };
        thread.Start();
        return thread;
    }

    /// <summary>Hands the turn over and times its return, <see cref="RoundTrips"/> times after <see cref="WarmUp"/>; null on a failure.</summary>
    private static long[]? Time(int cpu, int* turn, long deadline)
    {
        try
        {
            if (!CpuAffinity.TryPinCurrentThread(cpu))
            {
                return null;
            }
            var times = new long[RoundTrips];
            for (int i = -WarmUp; i < RoundTrips; i++)
            {
                long start = Stopwatch.GetTimestamp();
                Volatile.Write(ref *turn, 1);
                Futex.WakeAll(turn);
                if (!SleepWhile(turn, 1, deadline))
                {
                    return null;
                }
                if (i >= 0)
                {
                    times[i] = Stopwatch.GetTimestamp() - start;
                }
            }
            return times;
        }
        finally
        {
            Volatile.Write(ref *turn, -1);
            Futex.WakeAll(turn);
        }
    }

    /// <summary>Hands each turn straight back, until told to stop (or past the deadline).</summary>
    private static void Echo(int cpu, int* turn, long deadline)
    {
        if (!CpuAffinity.TryPinCurrentThread(cpu))
        {
            Volatile.Write(ref *turn, -1); // the timing thread then fails at once
            return;
        }
        while (SleepWhile(turn, 0, deadline) && Volatile.Read(ref *turn) == 1)
        {
            // Only a turn that is still 1: the timing thread may have written -1 meanwhile.
            Interlocked.CompareExchange(ref *turn, 0, 1);
            Futex.WakeAll(turn);
        }
    }

    /// <summary>Sleeps while <c>*word == value</c>; false when the deadline passes first.</summary>
    private static bool SleepWhile(int* word, int value, long deadline)
    {
        while (Volatile.Read(ref *word) == value)
        {
            if (Stopwatch.GetTimestamp() > deadline)
            {
                return false;
            }
            Futex.Wait(word, value, TimeSpan.FromMilliseconds(100));
        }
        return true;
    }

    /// <summary>Keeps <paramref name="cpu"/> from going idle, at SCHED_IDLE so that it takes no time any other thread wants; false if it cannot be made idle-class.</summary>
    private static bool Spin(int cpu, CancellationToken stop)
    {
        var idleClass = new SchedParam { Priority = 0 };
        if (!CpuAffinity.TryPinCurrentThread(cpu) || SchedSetScheduler(0, SchedIdle, ref idleClass) != 0)
        {
            return false; // never spin at normal priority: it would take the CPU from the threads being timed
        }
        while (!stop.IsCancellationRequested)
        {
            Thread.SpinWait(64);
        }
        return true;
    }

    private const int SchedIdle = 5;

    [StructLayout(LayoutKind.Sequential)]
    private struct SchedParam
    {
        public int Priority;
    }

    [LibraryImport("libc", EntryPoint = "sched_setscheduler")]
    private static partial int SchedSetScheduler(int pid, int policy, ref SchedParam param);
}
