using System;
using System.Diagnostics;
using System.Globalization;
using System.ServiceModel;
using System.Threading;

namespace IpcBench.Transports.Wcf.Host
{
    /// <summary>
    /// The echo service: every payload comes back as it is, except IpcBench's stats request, answered with
    /// this process's CPU time, request count and counters, the full 128-byte reply (docs/wire-format.md, "The stats
    /// request"; the .NET 10 side has it in ServerStats, which this .NET Framework program cannot reference).
    /// </summary>
    [ServiceBehavior(InstanceContextMode = InstanceContextMode.Single, ConcurrencyMode = ConcurrencyMode.Multiple)]
    public sealed class EchoService : IEcho
    {
        private const int StatsSize = 32;
        private const int StatsReplySize = 128;
        private static readonly byte[] Marker = { 0, (byte)'i', (byte)'p', (byte)'c', (byte)'b', (byte)'e', (byte)'n', (byte)'c', (byte)'h', (byte)'-', (byte)'s', (byte)'t', (byte)'a', (byte)'t', (byte)'s', 0 };

        /// <summary>
        /// Test-only: the ticks each reply busy-waits first, from IPCBENCH_TEST_SERVER_DELAY_US, which the 'ipcbench serve'
        /// that starts this host has checked and passes on (the harness's ServerStats.TestDelayVariable: benchmarks/ab.sh
        /// --inject-slowdown, a regression on purpose that its gate must catch here too).
        /// </summary>
        private static readonly long DelayTicks = double.TryParse(Environment.GetEnvironmentVariable("IPCBENCH_TEST_SERVER_DELAY_US"),
            NumberStyles.Float, CultureInfo.InvariantCulture, out double us) && us > 0 && us <= 1e6 ? (long)(us * Stopwatch.Frequency / 1e6) : 0;

        private long _requests;
        private readonly object _counting = new object();
        private HostCounters _previous; // at the last stats request: which threads ran since

        public byte[] Echo(byte[] payload)
        {
            if (IsStatsRequest(payload))
            {
                return StatsReply();
            }
            Interlocked.Increment(ref _requests);
            if (DelayTicks > 0)
            {
                SpinFor(DelayTicks);
            }
            return payload;
        }

        /// <summary>The test-only slowdown, kept off the path of every reply that has none (no clock read there).</summary>
        private static void SpinFor(long ticks)
        {
            for (long until = Stopwatch.GetTimestamp() + ticks; Stopwatch.GetTimestamp() < until;)
            {
                Thread.SpinWait(1);
            }
        }

        private static bool IsStatsRequest(byte[] payload)
        {
            if (payload == null || payload.Length != StatsSize)
            {
                return false;
            }
            for (int i = 0; i < StatsSize; i++)
            {
                if (payload[i] != (i < Marker.Length ? Marker[i] : 0))
                {
                    return false;
                }
            }
            return true;
        }

        private byte[] StatsReply()
        {
            var reply = new byte[StatsReplySize];
            Buffer.BlockCopy(Marker, 0, reply, 0, Marker.Length);
            var now = HostCounters.Read();
            long threadsRan;
            lock (_counting)
            {
                threadsRan = _previous != null ? now.ThreadsRanSince(_previous) : HostCounters.Unknown;
                _previous = now;
            }
            long[] fields = { now.CpuUs, Interlocked.Read(ref _requests), now.UserUs, now.SystemUs, now.VoluntarySwitches,
                now.InvoluntarySwitches, now.RunnableWaitUs, now.AllocatedBytes, threadsRan };
            for (int i = 0; i < fields.Length; i++)
            {
                WriteInt64LittleEndian(reply, 16 + 8 * i, fields[i]);
            }
            return reply;
        }

        private static void WriteInt64LittleEndian(byte[] buffer, int offset, long value)
        {
            for (int i = 0; i < 8; i++)
            {
                buffer[offset + i] = (byte)(value >> (8 * i));
            }
        }
    }
}
