using System.Runtime.InteropServices;

namespace IpcBench.Kit;

/// <summary>
/// Linux futexes: mmf's waits on a word of its shared mapping, and the environment probe's wake-ups. Not FUTEX_PRIVATE:
/// mmf's waiter and waker are different processes, so the kernel must key the wait on the physical page, not on the mm.
/// </summary>
public static unsafe partial class Futex
{
    private const int FutexWait = 0;
    private const int FutexWake = 1;

    public static bool IsSupported => OperatingSystem.IsLinux() && SyscallNumber != 0;

    private static readonly long SyscallNumber = RuntimeInformation.ProcessArchitecture switch
    {
        Architecture.X64 => 202,
        Architecture.Arm64 or Architecture.RiscV64 or Architecture.LoongArch64 => 98,
        Architecture.X86 => 240,
        Architecture.Arm => 240,
        _ => 0,
    };

    /// <summary>Sleeps while <c>*word == expected</c>, for at most <paramref name="timeout"/>; may wake spuriously.</summary>
    public static void Wait(int* word, int expected, TimeSpan timeout)
    {
        long ns = Math.Max(0, (long)(timeout.TotalMilliseconds * 1_000_000));
        var ts = new Timespec { Seconds = ns / 1_000_000_000, Nanoseconds = ns % 1_000_000_000 };
        Syscall(SyscallNumber, word, FutexWait, expected, &ts, null, 0);
    }

    /// <summary>Wakes every process sleeping on <paramref name="word"/>.</summary>
    public static void WakeAll(int* word) => Syscall(SyscallNumber, word, FutexWake, int.MaxValue, null, null, 0);

    [StructLayout(LayoutKind.Sequential)]
    private struct Timespec
    {
        public long Seconds;
        public long Nanoseconds;
    }

    [LibraryImport("libc", EntryPoint = "syscall")]
    private static partial long Syscall(long number, int* word, int op, int value, Timespec* timeout, int* word2, int value3);
}
