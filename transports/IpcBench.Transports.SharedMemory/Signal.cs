using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Runtime.Intrinsics.Arm;
using System.Runtime.Intrinsics.X86;
using IpcBench.Contract;
using IpcBench.Kit;

namespace IpcBench.Transports.SharedMemory;

/// <summary>The other side, as a waiter sees it: is it still there, and what to say when it takes too long.</summary>
internal interface IPeer
{
    /// <summary>Throws <see cref="TransportException"/> when the peer is gone (or the channel closed); otherwise returns.</summary>
    void ThrowIfGone();

    TransportTimeoutException TimedOut();
}

/// <summary>
/// One direction of the channel: a sequence word that the writer bumps after writing a message, a
/// count of sleeping waiters (so that the writer makes the wake-up syscall only when someone sleeps),
/// and the message length. The waiter announces itself (a full fence) before re-checking the word
/// and sleeping, and the writer publishes (a full fence) before looking for waiters: one of the two
/// always sees the other, so no wake-up is lost. Sleeping is a futex wait on the word on Linux; on
/// Windows, where .NET has no cross-process futex, a wait on <paramref name="wake"/>, a named
/// auto-reset event the writer sets: a set that comes before the wait is kept by the event, so it
/// is not lost either, and a stale one only costs the waiter a second look at the word.
/// </summary>
internal sealed unsafe class Signal(int* sequence, int* waiters, int* length, EventWaitHandle? wake = null) : IDisposable
{
    /// <summary>How long <see cref="WaitMode.Hybrid"/> spins before it sleeps.</summary>
    public static readonly TimeSpan HybridSpin = TimeSpan.FromMicroseconds(50);

    /// <summary>
    /// After this much of its spin, <see cref="WaitMode.Hybrid"/> also yields the CPU between rounds:
    /// a peer on the same CPU can only answer while the waiter is off it.
    /// </summary>
    public static readonly TimeSpan HybridYieldAfter = TimeSpan.FromMicroseconds(2);

    private static readonly long HybridYieldTicks = StopwatchTicks.From(HybridYieldAfter);

    /// <summary>How often a waiter checks that its peer is alive, and the longest single futex sleep.</summary>
    private static readonly long CheckInterval = Stopwatch.Frequency / 20;

    private static readonly long HybridSpinTicks = StopwatchTicks.From(HybridSpin);

    public int Sequence => Volatile.Read(ref *sequence);

    public int Length
    {
        get => Volatile.Read(ref *length);
        set => Volatile.Write(ref *length, value);
    }

    /// <summary>Makes message <paramref name="value"/> visible (its payload and length written before) and wakes sleepers.</summary>
    public void Publish(int value)
    {
        Interlocked.Exchange(ref *sequence, value); // a full fence: the waiters count below is read after the store
        if (Volatile.Read(ref *waiters) != 0)
        {
            Poke();
        }
    }

    /// <summary>Wakes sleepers without publishing anything, so that they re-check their conditions (detach, stop).</summary>
    public void Poke()
    {
        if (Futex.IsSupported)
        {
            Futex.WakeAll(sequence);
        }
        else
        {
            wake?.Set();
        }
    }

    /// <summary>
    /// Waits until the sequence differs from <paramref name="last"/> and returns the new value. Checks
    /// the peer every 50 ms; throws <see cref="TransportTimeoutException"/> once <paramref name="deadline"/>
    /// (Stopwatch ticks, <see cref="long.MaxValue"/> for none) has passed.
    /// </summary>
    public int WaitForChange(int last, WaitMode mode, long deadline, IPeer peer)
    {
        long now = Stopwatch.GetTimestamp();
        long nextCheck = now + CheckInterval;
        if (mode != WaitMode.Block)
        {
            long spinUntil = mode == WaitMode.Spin ? long.MaxValue : now + HybridSpinTicks;
            long yieldFrom = mode == WaitMode.Spin ? long.MaxValue : now + HybridYieldTicks;
            while (true)
            {
                for (int i = 0; i < 64; i++)
                {
                    int value = Volatile.Read(ref *sequence);
                    if (value != last)
                    {
                        return value;
                    }
                    Relax();
                }
                now = Stopwatch.GetTimestamp();
                if (now >= spinUntil)
                {
                    break;
                }
                if (now >= yieldFrom)
                {
                    Thread.Yield();
                }
                Check(ref nextCheck, now, deadline, peer);
            }
        }
        while (true)
        {
            Interlocked.Increment(ref *waiters);
            int value = Volatile.Read(ref *sequence);
            if (value == last)
            {
                long sleep = Math.Min(nextCheck, deadline) - Stopwatch.GetTimestamp();
                Sleep(last, TimeSpan.FromSeconds(Math.Max(sleep, 0) / (double)Stopwatch.Frequency));
                value = Volatile.Read(ref *sequence);
            }
            Interlocked.Decrement(ref *waiters);
            if (value != last)
            {
                return value;
            }
            Check(ref nextCheck, Stopwatch.GetTimestamp(), deadline, peer);
        }
    }

    /// <summary>One spin-loop pause: the CPU's own hint (PAUSE, YIELD), which also frees resources for a sibling hyperthread.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void Relax()
    {
        if (X86Base.IsSupported)
        {
            X86Base.Pause();
        }
        else if (ArmBase.IsSupported)
        {
            ArmBase.Yield();
        }
        else
        {
            Thread.SpinWait(1);
        }
    }

    /// <summary>A futex sleep on Linux, a wait on the named event on Windows; elsewhere (macOS: neither) a 1 ms nap.</summary>
    private void Sleep(int last, TimeSpan timeout)
    {
        if (Futex.IsSupported)
        {
            Futex.Wait(sequence, last, timeout);
        }
        else if (wake is not null)
        {
            wake.WaitOne(timeout);
        }
        else
        {
            Thread.Sleep(1);
        }
    }

    public void Dispose() => wake?.Dispose();

    private static void Check(ref long nextCheck, long now, long deadline, IPeer peer)
    {
        if (now >= nextCheck)
        {
            nextCheck = now + CheckInterval;
            peer.ThrowIfGone();
        }
        if (now >= deadline)
        {
            throw peer.TimedOut();
        }
    }
}
