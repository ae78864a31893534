using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace IpcBench.Harness.Measurement;

/// <summary>
/// What this process has spent up to one moment, over all its threads: the counters whose differences are a round
/// trip's anatomy (<see cref="Results.Anatomy"/>). On Linux from getrusage (CPU and context switches, dead threads
/// included) and each thread's /proc/self/task/TID/schedstat (time runnable but waiting for a CPU, and which threads
/// ran). Elsewhere the CPU times alone; a counter not read is -1. Not system calls: /proc/self/io counts only
/// those through the file layer (read, write), not a socket's recvmsg and sendmsg, which .NET uses (0.002 a tcp round trip).
/// </summary>
/// <param name="ThreadCpuNs">Each live thread's id and CPU time in nanoseconds (empty where not read).</param>
public sealed partial record ProcessCounters(long UserUs, long SystemUs, long VoluntarySwitches, long InvoluntarySwitches,
    long RunnableWaitUs, long AllocatedBytes, (int Id, long CpuNs)[] ThreadCpuNs)
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
                Unknown, Unknown, Unknown, GC.GetTotalAllocatedBytes(precise: true), []);
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
    public int? ThreadsRanSince(ProcessCounters earlier)
    {
        if (ThreadCpuNs.Length == 0)
        {
            return null;
        }
        int ran = 0;
        foreach (var (id, cpuNs) in ThreadCpuNs)
        {
            long before = 0;
            foreach (var then in earlier.ThreadCpuNs)
            {
                if (then.Id == id)
                {
                    before = then.CpuNs;
                    break;
                }
            }
            ran += cpuNs > before ? 1 : 0;
        }
        return ran;
    }

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
    /// The threads' time runnable but not running, summed, and each live one's CPU time, from their schedstat lines
    /// ("cpu-ns wait-ns timeslices"), read through the C library into buffers on the stack. It is optimized at its first
    /// call and calls nothing the runtime counts once a thread but its lock's enter and exit, which the tiering monitor
    /// has made hot before any measurement: code called 30 times is sent to tier 1, and a reader that enumerated, read
    /// and split through the framework did that inside the measured stretch it started, its compiling the client's
    /// p99.9 (docs/warm-up.md). One ending while read is skipped.
    /// <para>
    /// The wait is every thread's last-seen wait, summed: a thread that ended (or that one reading missed, as a listing
    /// of /proc/self/task can while another thread ends) keeps the wait it was last seen with, and an id seen again with
    /// less is a new thread, its predecessor's wait kept apart. So it never goes down between readings, as it did by a
    /// millisecond when a server's threads for client processes ended; what a thread waited between its last reading
    /// and its end is not counted. Readings are taken one at a time, so that a later one never meets an earlier scan.
    /// </para>
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private static unsafe (long WaitNs, (int Id, long CpuNs)[] CpuNs) Threads()
    {
        if (!Environment.Is64BitProcess)
        {
            return (Unknown, []); // the dirent layout below is 64-bit Linux's
        }
        lock (Seen)
        {
            var found = new (int Id, long CpuNs)[64];
            int count = 0;
            nint directory;
            fixed (byte* tasks = "/proc/self/task"u8)
            {
                directory = OpenDirectory(tasks);
            }
            if (directory == 0)
            {
                return (Unknown, []);
            }
            byte* path = stackalloc byte[64];
            int prefix = Append(path, 0, "/proc/self/task/"u8); // each thread's path is this, its id, then its file
            byte* line = stackalloc byte[128];
            for (byte* entry; (entry = (byte*)ReadDirectory(directory)) != null;)
            {
                // struct dirent: d_ino and d_off (8 bytes each), d_reclen (2), d_type (1), then d_name, NUL-terminated.
                byte* name = entry + 19;
                int id = 0, digits = 0;
                for (; digits < 10 && name[digits] is >= (byte)'0' and <= (byte)'9'; digits++)
                {
                    id = id * 10 + (name[digits] - '0');
                }
                if (digits == 0 || name[digits] != 0)
                {
                    continue; // "." and ".."
                }
                int length = Append(path, prefix, new ReadOnlySpan<byte>(name, digits));
                Append(path, length, "/schedstat\0"u8);
                int file = Open(path, OpenReadOnlyCloseOnExec);
                if (file < 0)
                {
                    continue;
                }
                nint read = ReadFile(file, line, 127);
                Close(file);
                if (read <= 0)
                {
                    continue;
                }
                line[read] = 0;
                byte* at = line;
                long runNs = Number(ref at), waitNs = Number(ref at);
                if (runNs < 0 || waitNs < 0)
                {
                    continue;
                }
                if (count == found.Length)
                {
                    found = Copy(found, count, count * 2);
                }
                found[count++] = (id, runNs);
                Remember(id, waitNs);
            }
            CloseDirectory(directory);
            return (count > 0 ? SeenWaitNs() : Unknown, Copy(found, count, count));
        }
    }

    /// <summary>Makes <paramref name="waitNs"/> thread <paramref name="id"/>'s last-seen wait (under <see cref="Seen"/>; no call).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void Remember(int id, long waitNs)
    {
        int seen = 0;
        while (seen < _seenCount && _seen[seen].Id != id)
        {
            seen++;
        }
        if (seen == _seenCount)
        {
            _seen = _seenCount == _seen.Length ? Copy(_seen, _seenCount, Math.Max(64, _seenCount * 2)) : _seen;
            _seenCount++;
        }
        else if (waitNs < _seen[seen].WaitNs)
        {
            _endedWaitNs += _seen[seen].WaitNs; // the id of a thread that ended, taken by a new one
        }
        _seen[seen] = (id, waitNs);
    }

    /// <summary>Every thread's last-seen wait, summed (under <see cref="Seen"/>; no call).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static long SeenWaitNs()
    {
        long wait = _endedWaitNs;
        for (int i = 0; i < _seenCount; i++)
        {
            wait += _seen[i].WaitNs;
        }
        return wait;
    }

    /// <summary>Taken for a whole reading of the threads: <see cref="_seen"/> and <see cref="_endedWaitNs"/> are this process's, not a reading's.</summary>
    private static readonly Lock Seen = new();

    /// <summary>Every thread id read in this process, with the wait it was last read with (the first <see cref="_seenCount"/>).</summary>
    private static (int Id, long WaitNs)[] _seen = [];
    private static int _seenCount;

    /// <summary>The last-seen waits of threads whose id a later thread took.</summary>
    private static long _endedWaitNs;

    /// <summary>The first <paramref name="count"/> items in an array of <paramref name="size"/>, copied in a loop (no call).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static T[] Copy<T>(T[] items, int count, int size)
    {
        var copy = new T[size];
        for (int i = 0; i < count; i++)
        {
            copy[i] = items[i];
        }
        return copy;
    }

    /// <summary>Copies <paramref name="text"/> to <paramref name="to"/> at <paramref name="at"/> byte by byte (no call) and returns where it ends.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static unsafe int Append(byte* to, int at, ReadOnlySpan<byte> text)
    {
        for (int i = 0; i < text.Length; i++)
        {
            to[at + i] = text[i];
        }
        return at + text.Length;
    }

    /// <summary>The decimal number at <paramref name="at"/>, after any spaces, and moves past it; -1 if none is there.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static unsafe long Number(ref byte* at)
    {
        while (*at == ' ')
        {
            at++;
        }
        long value = -1;
        for (; *at is >= (byte)'0' and <= (byte)'9'; at++)
        {
            value = (value < 0 ? 0 : value * 10) + (*at - '0');
        }
        return value;
    }

    private const int RUsageSelf = 0;

    /// <summary>open(2)'s O_RDONLY | O_CLOEXEC (Linux, x86-64 and arm64): a process started meanwhile inherits no descriptor.</summary>
    private const int OpenReadOnlyCloseOnExec = 0x80000;

    [LibraryImport("libc", EntryPoint = "getrusage")]
    private static partial int GetRUsage(int who, ref long usage);

    [LibraryImport("libc", EntryPoint = "opendir")]
    private static unsafe partial nint OpenDirectory(byte* path);

    [LibraryImport("libc", EntryPoint = "readdir")]
    private static partial nint ReadDirectory(nint directory);

    [LibraryImport("libc", EntryPoint = "closedir")]
    private static partial int CloseDirectory(nint directory);

    [LibraryImport("libc", EntryPoint = "open")]
    private static unsafe partial int Open(byte* path, int flags);

    [LibraryImport("libc", EntryPoint = "read")]
    private static unsafe partial nint ReadFile(int file, byte* buffer, nint count);

    [LibraryImport("libc", EntryPoint = "close")]
    private static partial int Close(int file);
}
