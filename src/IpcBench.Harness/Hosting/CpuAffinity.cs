using System.Diagnostics;
using System.Runtime.InteropServices;

namespace IpcBench.Harness.Hosting;

/// <summary>
/// Pins a whole process to one CPU. On Linux affinity belongs to threads, and
/// <see cref="Process.ProcessorAffinity"/> sets only the main thread's, so every thread is pinned
/// (threads created later inherit their creator's mask). On Windows affinity is per process.
/// </summary>
public static partial class CpuAffinity
{
    private const int MaskWords = 16; // 1024 CPUs, glibc's cpu_set_t

    private static readonly Lazy<IReadOnlyList<int>> BeforePinning = new(ReadUsableCpus);

    /// <summary>
    /// The CPUs this process may run on, in ascending order, as they were before IpcBench pinned it:
    /// a placement is worked out again after the pinning (to describe it), and must come out the same.
    /// </summary>
    public static IReadOnlyList<int> UsableCpus() => BeforePinning.Value;

    private static IReadOnlyList<int> ReadUsableCpus()
    {
        if (OperatingSystem.IsLinux())
        {
            var mask = new ulong[MaskWords];
            if (SchedGetAffinity(0, MaskWords * sizeof(ulong), mask) == 0)
            {
                return Enumerable.Range(0, MaskWords * 64).Where(cpu => (mask[cpu / 64] & (1UL << (cpu % 64))) != 0).ToList();
            }
        }
        return Enumerable.Range(0, Environment.ProcessorCount).ToList();
    }

    public static void PinCurrentProcess(int cpu)
    {
        _ = BeforePinning.Value; // taken now, while the whole set is still ours
        if (OperatingSystem.IsLinux())
        {
            var mask = new ulong[MaskWords];
            mask[cpu / 64] = 1UL << (cpu % 64);
            foreach (string task in Directory.EnumerateDirectories("/proc/self/task"))
            {
                int tid = int.Parse(Path.GetFileName(task));
                if (SchedSetAffinity(tid, MaskWords * sizeof(ulong), mask) != 0)
                {
                    int errno = Marshal.GetLastPInvokeError();
                    if (errno != 3) // ESRCH: the thread ended meanwhile
                    {
                        throw new InvalidOperationException($"cannot pin to cpu {cpu}: sched_setaffinity failed (errno {errno})");
                    }
                }
            }
        }
        else if (OperatingSystem.IsWindows())
        {
            using var self = Process.GetCurrentProcess();
            self.ProcessorAffinity = (nint)(1L << cpu);
        }
        else
        {
            throw new PlatformNotSupportedException("CPU placement is supported on Linux and Windows only");
        }
    }

    /// <summary>Pins the calling thread alone to <paramref name="cpu"/> (Linux; elsewhere false): the wake-up probe's threads.</summary>
    public static bool TryPinCurrentThread(int cpu)
    {
        if (!OperatingSystem.IsLinux())
        {
            return false;
        }
        var mask = new ulong[MaskWords];
        mask[cpu / 64] = 1UL << (cpu % 64);
        return SchedSetAffinity(0, MaskWords * sizeof(ulong), mask) == 0; // 0: the calling thread
    }

    [LibraryImport("libc", EntryPoint = "sched_setaffinity", SetLastError = true)]
    private static partial int SchedSetAffinity(int pid, nint size, ulong[] mask);

    [LibraryImport("libc", EntryPoint = "sched_getaffinity", SetLastError = true)]
    private static partial int SchedGetAffinity(int pid, nint size, [Out] ulong[] mask);
}
