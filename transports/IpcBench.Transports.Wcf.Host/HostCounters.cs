using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Runtime.InteropServices;

namespace IpcBench.Transports.Wcf.Host
{
    /// <summary>
    /// What the host has spent up to one moment, for the full stats reply (docs/wire-format.md, "The stats request"):
    /// read as the .NET 10 servers read theirs (the harness's ProcessCounters, which this .NET Framework program cannot
    /// reference). Under Mono on Linux, getrusage for the CPU times and context switches and each thread's
    /// /proc/self/task/TID/schedstat for the time runnable but waiting and which threads ran; elsewhere the CPU times
    /// alone. The bytes allocated come from the AppDomain's monitoring where the runtime keeps it (the .NET Framework);
    /// Mono does not. A counter not read is -1.
    /// </summary>
    internal sealed class HostCounters
    {
        public const long Unknown = -1;

        private static readonly bool OnLinux = Environment.OSVersion.Platform == PlatformID.Unix && Directory.Exists("/proc/self/task");

        private static readonly bool AllocationsCounted = StartCountingAllocations();

        public long UserUs { get; private set; }

        public long SystemUs { get; private set; }

        public long VoluntarySwitches { get; private set; } = Unknown;

        public long InvoluntarySwitches { get; private set; } = Unknown;

        public long RunnableWaitUs { get; private set; } = Unknown;

        public long AllocatedBytes { get; private set; } = Unknown;

        /// <summary>Each live thread's CPU time in nanoseconds, by thread id (empty where not read).</summary>
        public Dictionary<int, long> ThreadCpuNs { get; } = new Dictionary<int, long>();

        public long CpuUs => UserUs + SystemUs;

        /// <summary>The counters now. The threads first, then the CPU times, as ProcessCounters reads them.</summary>
        public static HostCounters Read()
        {
            var counters = new HostCounters();
            if (OnLinux)
            {
                counters.ReadThreads();
            }
            if (!OnLinux || !counters.ReadUsage())
            {
                using (var self = Process.GetCurrentProcess())
                {
                    counters.UserUs = self.UserProcessorTime.Ticks / 10;
                    counters.SystemUs = self.PrivilegedProcessorTime.Ticks / 10;
                }
            }
            if (AllocationsCounted)
            {
                counters.AllocatedBytes = AppDomain.CurrentDomain.MonitoringTotalAllocatedMemorySize;
            }
            return counters;
        }

        /// <summary>Threads whose CPU time grew since <paramref name="earlier"/>, and new ones that used any; -1 when not read.</summary>
        public long ThreadsRanSince(HostCounters earlier)
        {
            if (ThreadCpuNs.Count == 0)
            {
                return Unknown;
            }
            long ran = 0;
            foreach (var thread in ThreadCpuNs)
            {
                earlier.ThreadCpuNs.TryGetValue(thread.Key, out long before);
                ran += thread.Value > before ? 1 : 0;
            }
            return ran;
        }

        private bool ReadUsage()
        {
            // struct rusage on 64-bit Linux: two timevals (seconds, microseconds), then 14 longs, the last two ru_nvcsw and ru_nivcsw.
            var usage = new long[18];
            if (getrusage(0, usage) != 0)
            {
                return false;
            }
            UserUs = usage[0] * 1000000 + usage[1];
            SystemUs = usage[2] * 1000000 + usage[3];
            VoluntarySwitches = usage[16];
            InvoluntarySwitches = usage[17];
            return true;
        }

        private static readonly object Seen = new object();
        private static readonly Dictionary<int, long> SeenWaitNs = new Dictionary<int, long>();
        private static long _endedWaitNs;

        /// <summary>
        /// Each schedstat line is "cpu-ns wait-ns timeslices"; a thread that ends while read is skipped. The wait is every
        /// thread's last-seen wait, as ProcessCounters sums it: one that ended keeps what it was last seen with, an id seen
        /// again with less is a new thread. It never goes down; one reading at a time.
        /// </summary>
        private void ReadThreads()
        {
            lock (Seen)
            {
                try
                {
                    foreach (string task in Directory.GetDirectories("/proc/self/task"))
                    {
                        string[] fields;
                        try
                        {
                            fields = File.ReadAllText(Path.Combine(task, "schedstat")).Split(new[] { ' ' }, StringSplitOptions.RemoveEmptyEntries);
                        }
                        catch (Exception e) when (e is IOException || e is UnauthorizedAccessException)
                        {
                            continue;
                        }
                        if (fields.Length >= 2 && int.TryParse(Path.GetFileName(task), NumberStyles.None, CultureInfo.InvariantCulture, out int tid)
                            && long.TryParse(fields[0], NumberStyles.None, CultureInfo.InvariantCulture, out long cpuNs)
                            && long.TryParse(fields[1], NumberStyles.None, CultureInfo.InvariantCulture, out long waitNs))
                        {
                            ThreadCpuNs[tid] = cpuNs;
                            if (SeenWaitNs.TryGetValue(tid, out long lastNs) && waitNs < lastNs)
                            {
                                _endedWaitNs += lastNs; // the id of a thread that ended, taken by a new one
                            }
                            SeenWaitNs[tid] = waitNs;
                        }
                    }
                }
                catch (Exception e) when (e is IOException || e is UnauthorizedAccessException)
                {
                    return;
                }
                if (ThreadCpuNs.Count > 0)
                {
                    long total = _endedWaitNs;
                    foreach (long waitNs in SeenWaitNs.Values)
                    {
                        total += waitNs;
                    }
                    RunnableWaitUs = total / 1000;
                }
            }
        }

        /// <summary>The .NET Framework counts a domain's allocations once asked to; Mono has no such count and says so.</summary>
        private static bool StartCountingAllocations()
        {
            try
            {
                AppDomain.MonitoringIsEnabled = true;
                return AppDomain.CurrentDomain.MonitoringTotalAllocatedMemorySize >= 0;
            }
            catch (Exception e) when (e is NotImplementedException || e is NotSupportedException || e is InvalidOperationException)
            {
                return false;
            }
        }

        [DllImport("libc")]
        private static extern int getrusage(int who, [Out] long[] usage);
    }
}
