using System.Diagnostics;
using System.Globalization;
using System.Runtime.InteropServices;

namespace IpcBench.Harness.Measurement;

/// <summary>
/// What this process has spent up to one moment, over all its threads: the counters whose differences are a round
/// trip's anatomy (<see cref="Results.Anatomy"/>). On Linux from getrusage (CPU and context switches, dead threads
/// included) and each live thread's /proc/self/task/TID/schedstat (time runnable but waiting for a CPU, and which
/// threads ran). Elsewhere the CPU times alone; a counter not read is -1. Not system calls: /proc/self/io counts only
/// those through the file layer (read, write), not a socket's recvmsg and sendmsg, which .NET uses (0.002 a tcp round trip).
/// </summary>
/// <param name="ThreadCpuNs">Each live thread's CPU time in nanoseconds, by thread id (empty where not read).</param>
public sealed partial record ProcessCounters(long UserUs, long SystemUs, long VoluntarySwitches, long InvoluntarySwitches,
    long RunnableWaitUs, long AllocatedBytes, IReadOnlyDictionary<int, long> ThreadCpuNs)
{
    public const long Unknown = -1;

    /// <summary>User plus system CPU time in microseconds.</summary>
    public long CpuUs => UserUs + SystemUs;

    /// <summary>
    /// This process's counters now. Costs a read of a small /proc file per thread (a few hundred microseconds; the first
    /// reading, its JIT's, tens of milliseconds): never inside a measured loop. The CPU times are read after the threads,
    /// so that a reading that starts a stretch leaves its own cost out of it; <paramref name="cpuFirst"/>, for a reading
    /// that ends one, reads them before.
    /// </summary>
    public static ProcessCounters Read(bool cpuFirst = false)
    {
        if (!OperatingSystem.IsLinux())
        {
            using var self = Process.GetCurrentProcess();
            return new((long)self.UserProcessorTime.TotalMicroseconds, (long)self.PrivilegedProcessorTime.TotalMicroseconds,
                Unknown, Unknown, Unknown, GC.GetTotalAllocatedBytes(precise: true), new Dictionary<int, long>());
        }
        var usage = cpuFirst ? Usage() : default;
        var (waitNs, threads) = Threads();
        if (!cpuFirst)
        {
            usage = Usage();
        }
        return new(usage.UserUs, usage.SystemUs, usage.Voluntary, usage.Involuntary, waitNs < 0 ? Unknown : waitNs / 1000,
            GC.GetTotalAllocatedBytes(precise: true), threads);
    }

    /// <summary>
    /// Threads that ran between <paramref name="earlier"/> and this reading: those whose CPU time grew, and new ones that
    /// used any (null: the threads were not read).
    /// </summary>
    public int? ThreadsRanSince(ProcessCounters earlier) =>
        ThreadCpuNs.Count == 0 ? null : ThreadCpuNs.Count(t => t.Value > earlier.ThreadCpuNs.GetValueOrDefault(t.Key));

    private static (long UserUs, long SystemUs, long Voluntary, long Involuntary) Usage()
    {
        // struct rusage on 64-bit Linux: two timevals (seconds, microseconds), then 14 longs, of which the last two are
        // ru_nvcsw and ru_nivcsw.
        Span<long> usage = stackalloc long[18];
        if (GetRUsage(RUsageSelf, ref MemoryMarshal.GetReference(usage)) != 0)
        {
            using var self = Process.GetCurrentProcess();
            return ((long)self.UserProcessorTime.TotalMicroseconds, (long)self.PrivilegedProcessorTime.TotalMicroseconds, Unknown, Unknown);
        }
        return (usage[0] * 1_000_000 + usage[1], usage[2] * 1_000_000 + usage[3], usage[16], usage[17]);
    }

    /// <summary>
    /// The live threads' time runnable but not running, summed, and each one's CPU time, from their schedstat lines
    /// ("cpu-ns wait-ns timeslices"). A thread that ended took its share with it; a thread ending while read is skipped.
    /// </summary>
    private static (long WaitNs, Dictionary<int, long> CpuNs) Threads()
    {
        var cpu = new Dictionary<int, long>();
        long wait = 0;
        try
        {
            foreach (string task in Directory.EnumerateDirectories("/proc/self/task"))
            {
                string line;
                try
                {
                    line = File.ReadAllText(Path.Combine(task, "schedstat"));
                }
                catch (Exception e) when (e is IOException or UnauthorizedAccessException)
                {
                    continue;
                }
                var fields = line.Split(' ', StringSplitOptions.RemoveEmptyEntries);
                if (fields.Length >= 2 && int.TryParse(Path.GetFileName(task), CultureInfo.InvariantCulture, out int tid)
                    && long.TryParse(fields[0], CultureInfo.InvariantCulture, out long runNs) && long.TryParse(fields[1], CultureInfo.InvariantCulture, out long waitNs))
                {
                    cpu[tid] = runNs;
                    wait += waitNs;
                }
            }
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return (Unknown, cpu);
        }
        return (cpu.Count > 0 ? wait : Unknown, cpu);
    }

    private const int RUsageSelf = 0;

    [LibraryImport("libc", EntryPoint = "getrusage")]
    private static partial int GetRUsage(int who, ref long usage);
}
