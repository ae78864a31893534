namespace IpcBench.Reporting.Writers;

/// <summary>
/// "Where a round trip's time goes": each steady case's anatomy (<see cref="Anatomy"/>) as a table, with the chart that
/// stacks it (<see cref="Charts.AnatomyChart"/>). The round trip here is the wall time per request, one over the rate,
/// which the CPU both sides spent per request can be held against; the p50 is beside it.
/// </summary>
internal static class AnatomySection
{
    /// <summary>A steady case with an anatomy: its row, and what the parts leave of the wall time per request.</summary>
    public sealed record Part(RunLayout.Row Row, CaseResult Case, Anatomy Anatomy)
    {
        /// <summary>Wall time per request, from the rate: what the parts are held against.</summary>
        public double RoundTripUs => 1e6 / Case.RequestsPerSecond;

        /// <summary>
        /// The round trip less both sides' CPU: time neither process ran (a wake-up, a timer, a broker's CPU), or, below
        /// zero, CPU both spent at once on different CPUs.
        /// </summary>
        public double RestUs => RoundTripUs - (Anatomy.Client?.CpuUs ?? 0) - (Anatomy.Server?.CpuUs ?? 0);
    }

    /// <summary>Every steady case of <paramref name="layout"/> at <paramref name="size"/> (or at every size) with an anatomy.</summary>
    public static List<Part> Parts(RunLayout layout, int? size = null) =>
        [.. layout.Rows.SelectMany(row => layout.Sizes.Where(s => size is null || s == size).Select(s => layout.Case(row, s)))
            .OfType<CaseResult>()
            .Where(c => c.Anatomy is not null && c.RequestsPerSecond > 0)
            .Select(c => new Part(layout.Rows.First(r => layout.Case(r, c.Size) == c), c, c.Anatomy!))];

    /// <summary>The section, with its chart where <paramref name="run"/> has one to draw; null when no case has an anatomy.</summary>
    public static ReportSection? Of(RunResults run, RunLayout layout)
    {
        var parts = Parts(layout);
        if (parts.Count == 0)
        {
            return null;
        }
        var table = new Table("transport", "size", "round trip us", "p50 us", "client CPU us, user + system", "server CPU us, user + system", "rest us",
            "switches, voluntary + involuntary: client; server", "runnable wait us: client; server", "threads ran: client; server", "allocated B: client; server");
        foreach (var p in parts)
        {
            SideAnatomy? c = p.Anatomy.Client, s = p.Anatomy.Server;
            table.Add(p.Row.Label, Units.Size(p.Case.Size), Units.Us(p.RoundTripUs), Units.Us(p.Case.LatencyUs.P50), Cpu(c), Cpu(s), Rest(p.RestUs),
                $"{Switches(c)}; {Switches(s)}", $"{Units.Cpu(c?.RunnableWaitUs)}; {Units.Cpu(s?.RunnableWaitUs)}",
                $"{Threads(c)}; {Threads(s)}", $"{Units.Bytes(c?.AllocatedBytes)}; {Units.Bytes(s?.AllocatedBytes)}");
        }
        return new ReportSection("Where a round trip's time goes", [
            "Per request, over the measured requests. The round trip is the wall time per request (one over the rate), against which both sides' CPU time is held; the p50 is beside it, and sits below it where a few slow requests lift the mean.",
            "rest: the round trip less both sides' CPU, time neither process ran (a wake-up, a timer, a broker's or the kernel's work charged to no side), or, below zero, CPU both spent at once on different CPUs. With both on one CPU (same-core) the CPU of both plus the rest is the round trip.",
            "switches: a thread giving up its CPU to wait (voluntary) or taken off it while it could run on (involuntary); runnable wait: time threads were ready but not running, on one CPU mostly while the other side ran; threads ran: how many of the process's threads ran at all.",
            "How to read it: docs/anatomy.md.",
        ], table, Chart: Charts.AnatomyChart.Applies(run) ? Charts.AnatomyChart.FileName : null);
    }

    private static string Cpu(SideAnatomy? side) => side is null ? Units.Missing : $"{Units.Cpu(side.UserUs)} + {Units.Cpu(side.SystemUs)}";

    private static string Rest(double us) => us < 0 ? "-" + Units.Cpu(-us) : Units.Cpu(us);

    private static string Switches(SideAnatomy? side) =>
        side?.VoluntarySwitches is double v && side.InvoluntarySwitches is double i ? $"{v:0.00} + {i:0.00}" : Units.Missing;

    private static string Threads(SideAnatomy? side) => side?.ThreadsRan is int n ? Units.Count(n) : Units.Missing;
}
