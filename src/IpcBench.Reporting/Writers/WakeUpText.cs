namespace IpcBench.Reporting.Writers;

/// <summary>What a run's <see cref="WakeUpFigures"/> say: env.md's list, and the one sentence of the summary.</summary>
internal static class WakeUpText
{
    /// <summary>Whether a round trip at <paramref name="placement"/> ("none", "same-core", "cross-core") can wait for another CPU to wake.</summary>
    public static bool CrossesCpus(string placement) => placement != "same-core";

    public static ReportSection Section(WakeUpFigures? wakeUp) => wakeUp is null
        ? new("Wake-ups", [], After: ["Not measured (a run from before IpcBench measured them)."])
        : new("Wake-ups",
        [
            $"a hand-off on one CPU (a context switch): {Us(wakeUp.OneCpuUs)}",
            $"a wake-up of another CPU that went idle: {Us(wakeUp.CrossCpuIdleUs)}",
            $"a wake-up of another CPU kept awake (SCHED_IDLE busy loops): {Us(wakeUp.CrossCpuAwakeUs)}",
            $"cpuidle driver: {wakeUp.CpuidleDriver ?? "unknown"}; governor: {wakeUp.CpuidleGovernor ?? "unknown"}",
            $"haltpoll: {wakeUp.Haltpoll ?? "not loaded"}",
        ], After: ["One way, the median of 2,000 round trips between two threads that sleep on a futex until woken, measured "
            + "with the run. A blocking transport's round trip pays two: at placement same-core a context switch each, at none "
            + "or cross-core a wake-up of the other CPU each, whose cost depends on whether that CPU was idle."]);

    /// <summary>What the wake-up costs mean for the run's steady-state figures, in one sentence (null: not measured, or no such case).</summary>
    public static string? Sentence(RunResults run)
    {
        var w = run.Environment.WakeUp;
        var placements = RunDigest.Of(run, CaseKind.Steady).Select(c => c.Placement).Distinct().ToList();
        if (w?.OneCpuUs is not double one || placements.Count == 0)
        {
            return null;
        }
        if (w.CrossCpuIdleUs is not double idle || w.CrossCpuAwakeUs is not double awake)
        {
            return $"Waking a sleeping thread here costs {Us(one)} (a context switch); another CPU's wake-up was not measured.";
        }
        string costs = $"a wake-up of another CPU costs {Us(idle)} here when it was idle and {Us(awake)} when kept awake, against {Us(one)} for a hand-off on one CPU";
        var crossing = placements.Where(CrossesCpus).ToList();
        return crossing.Count == 0
            ? $"Client and server took turns on one CPU (same-core), so no figure here waits for a CPU to wake and none moves with how the machine idles; {costs}."
            : $"A round trip at placement {string.Join(" or ", crossing)} pays up to two wake-ups of another CPU: {costs}, so its figures "
              + $"can move by {Us(w.RoundTripSwingUs!.Value)} with how the machine idles alone, and differences smaller than that rank nothing (same-core figures do not move so).";
    }

    private static string Us(double? us) => us is double v ? $"{Units.Us(v)} us" : "not measured";
}
