using IpcBench.Harness.Measurement;

namespace IpcBench.Harness.Results;

/// <summary>
/// Where a round trip's time and work went, per request, on each side: why a transport costs what it costs, beside how
/// much (docs/anatomy.md). Measured over the same stretch as the latencies, from two readings of each process's
/// counters (<see cref="ProcessCounters"/>) taken outside the measured loop.
/// </summary>
/// <param name="Client">The client process's share (null: several client processes, or not measured).</param>
/// <param name="Server">The server process's, as it reported it (null: it did not, or cannot tell, as under gVisor).</param>
public sealed record Anatomy(SideAnatomy? Client, SideAnatomy? Server);

/// <summary>One process's share of a round trip, per request, every thread of it; null where its system does not say.</summary>
/// <param name="UserUs">CPU time in user mode.</param>
/// <param name="SystemUs">CPU time in the kernel on its behalf.</param>
/// <param name="VoluntarySwitches">Times a thread gave up its CPU to wait (a blocking read, a futex, a sleep).</param>
/// <param name="InvoluntarySwitches">Times a thread was taken off its CPU while it could have run on.</param>
/// <param name="RunnableWaitUs">Time its threads were runnable but waiting for a CPU (on one shared CPU: while the other side ran).</param>
/// <param name="ThreadsRan">How many of its threads ran at all during the stretch (not per request).</param>
/// <param name="AllocatedBytes">Managed bytes allocated.</param>
public sealed record SideAnatomy(double UserUs, double SystemUs, double? VoluntarySwitches, double? InvoluntarySwitches, double? RunnableWaitUs,
    int? ThreadsRan, double? AllocatedBytes)
{
    /// <summary>
    /// The share per operation between two readings, <paramref name="operations"/> of them; null when there were none.
    /// <paramref name="threadsRan"/>: what the reader counted (<see cref="ProcessCounters.ThreadsRanSince"/>), null when it could not.
    /// </summary>
    public static SideAnatomy? Between(ProcessCounters earlier, ProcessCounters later, int? threadsRan, long operations)
    {
        if (operations <= 0)
        {
            return null;
        }
        double? Per(Func<ProcessCounters, long> counter) =>
            counter(earlier) < 0 || counter(later) < 0 ? null : Math.Round((double)(counter(later) - counter(earlier)) / operations, 3);
        return new(Per(c => c.UserUs) ?? 0, Per(c => c.SystemUs) ?? 0, Per(c => c.VoluntarySwitches), Per(c => c.InvoluntarySwitches),
            Per(c => c.RunnableWaitUs), threadsRan, Per(c => c.AllocatedBytes));
    }

    /// <summary>User plus system CPU time per request.</summary>
    [System.Text.Json.Serialization.JsonIgnore]
    public double CpuUs => UserUs + SystemUs;
}
