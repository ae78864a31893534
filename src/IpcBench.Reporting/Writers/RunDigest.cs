using IpcBench.Harness.Hosting;

namespace IpcBench.Reporting.Writers;

/// <summary>
/// "What to read here": a few sentences worked out from a run, so that a reader sees its answer before its tables: the
/// fastest transport of each family, the in-process floor and what crossing processes costs over it, what each framework
/// costs over plain tcp, the cheapest in CPU, the cold starts and the most requests/s under load (those two of IPC only).
/// First, what the machine's wake-ups mean for the figures; steady-state cases are set side by side only with cases of
/// their own placement, and across CPUs only where they differ by more than the wake-ups can move them.
/// </summary>
public static class RunDigest
{
    public static IReadOnlyList<string> Sentences(RunResults run)
    {
        var sentences = new List<string>();
        if (WakeUpText.Sentence(run) is { } wakeUps)
        {
            sentences.Add(wakeUps);
        }
        // Cases are set side by side only at one placement: across placements a difference is the wake-ups'.
        var placements = Of(run, CaseKind.Steady).GroupBy(c => c.Placement).ToList();
        foreach (var placement in placements)
        {
            var steady = new RunLayout(run with { Cases = [.. placement] });
            double? swing = WakeUpText.CrossesCpus(placement.Key) ? run.Environment.WakeUp?.RoundTripSwingUs : null;
            string prefix = placements.Count > 1 ? $"Placement {placement.Key}: " : "";
            sentences.AddRange(SteadySentences(steady, swing).Select(sentence => prefix + sentence));
        }
        var cold = Of(run, CaseKind.ColdStart).Where(IsIpc).OrderBy(c => c.LatencyUs.P50).ToList();
        if (cold.Count > 0)
        {
            sentences.Add(cold.Count == 1
                ? $"A new connection, its request and its close: {cold[0].Transport} {Units.Us(cold[0].LatencyUs.P50)} us (p50)."
                : $"A new connection, its request and its close (p50): from {cold[0].Transport} {Units.Us(cold[0].LatencyUs.P50)} us "
                  + $"to {cold[^1].Transport} {Units.Us(cold[^1].LatencyUs.P50)} us.");
        }
        if (Of(run, CaseKind.UnderLoad).Where(IsIpc).MaxBy(c => c.RequestsPerSecond) is { } most)
        {
            sentences.Add($"Most requests/s under load: {LoadTable.Describe(most, run)}, {Units.Rate(most.RequestsPerSecond)}/s.");
        }
        return sentences;
    }

    /// <summary>
    /// The steady state of one placement: the fastest of each family, the floor, each framework over tcp, CPU per request.
    /// Where <paramref name="swing"/> (how far a round trip across CPUs moves with how the machine idles) is larger than a
    /// difference, the sentence says so instead of ranking.
    /// </summary>
    private static IEnumerable<string> SteadySentences(RunLayout steady, double? swing)
    {
        if (steady.Sizes.Count == 0)
        {
            yield break;
        }
        int smallest = steady.Sizes[0];
        var fastest = steady.Families
            .Select(family => Fastest(steady, smallest, steady.Rows.Where(r => r.Family == family), swing) is { } best ? $"{family}: {best}" : null)
            .OfType<string>().ToList();
        if (fastest.Count > 0)
        {
            yield return $"Fastest of each family at {Units.Size(smallest)} (p50): {string.Join("; ", fastest)}.";
        }
        if (OverTheFloor(steady, smallest) is { } overFloor)
        {
            yield return overFloor;
        }
        if (OverTcp(steady, swing) is { } overTcp)
        {
            yield return overTcp;
        }
        var cpu = steady.Rows.Select(r => (Row: r, Case: steady.Case(r, smallest)))
            .Where(x => x.Case?.ServerCpuUsPerOp is not null).OrderBy(x => CpuPerRequest(x.Case!)).ToList();
        if (cpu.Count > 1)
        {
            yield return $"CPU per request at {Units.Size(smallest)}, client and server together: least {cpu[0].Row.Label} "
                + $"({Units.Cpu(CpuPerRequest(cpu[0].Case!))} us), most {cpu[^1].Row.Label} ({Units.Cpu(CpuPerRequest(cpu[^1].Case!))} us).";
        }
    }

    /// <summary>The baselines' family: not IPC, the floor under the rest.</summary>
    public static readonly string BaselineFamily = Figures.FamilyName(Contract.TransportFamily.Baseline);

    /// <summary>The floor every transport is measured against: the handler in the client's process, the payload copied in and out.</summary>
    public const string Floor = "inproc-copy";

    /// <summary>The run's <see cref="Floor"/> row (the first, should it have several), or null.</summary>
    public static RunLayout.Row? FloorRow(RunLayout layout) => layout.Rows.FirstOrDefault(r => r.Transport == Floor);

    /// <summary>"The floor ... 0.1 us at 1 B; over it, from mmf +2.3 us to amqp +180 us": the cheapest and the dearest crossing.</summary>
    private static string? OverTheFloor(RunLayout layout, int size)
    {
        if (FloorRow(layout) is not { } floor || layout.Case(floor, size) is not { } f)
        {
            return null;
        }
        var over = layout.Rows.Where(r => r.Family != BaselineFamily)
            .Select(r => (r.Label, Case: layout.Case(r, size))).Where(x => x.Case is not null)
            .Select(x => (x.Label, Excess: x.Case!.LatencyUs.P50 - f.LatencyUs.P50)).OrderBy(x => x.Excess).ToList();
        string floorText = $"The floor, {floor.Label} (the handler in the client's process, the payload copied in and out), is {Units.Us(f.LatencyUs.P50)} us at {Units.Size(size)} (p50)";
        return over.Count switch
        {
            0 => floorText + ".",
            1 => $"{floorText}; {over[0].Label} costs {Units.Us(over[0].Excess)} us over it.",
            _ => $"{floorText}; crossing processes costs from {over[0].Label} +{Units.Us(over[0].Excess)} us to {over[^1].Label} +{Units.Us(over[^1].Excess)} us over it.",
        };
    }

    /// <summary>Not a baseline: a baseline's cold start or load says nothing about crossing processes.</summary>
    private static bool IsIpc(CaseResult c) => c.Family != BaselineFamily;

    public static double CpuPerRequest(CaseResult c) => c.ClientCpuUsPerOp + (c.ServerCpuUsPerOp ?? 0);

    /// <summary>
    /// The run's steady-state cases, what the latency charts show: cold starts (orders of magnitude apart, one size) and
    /// cases under load have charts of their own, and would double the lines. A run of none is charted as it is.
    /// </summary>
    public static RunResults SteadyState(RunResults run) => Of(run, CaseKind.Steady) is { Count: > 0 } steady ? run with { Cases = steady } : run;

    public static IReadOnlyList<CaseResult> Of(RunResults run, CaseKind kind) => [.. run.Cases.Where(c => c.Key.Kind == kind)];

    /// <summary>"uds 10.8 us", or, when others are closer to it than the swing, all of those with no ranking; null when the family did not run that size.</summary>
    private static string? Fastest(RunLayout layout, int size, IEnumerable<RunLayout.Row> rows, double? swing)
    {
        var ranked = rows.Select(r => (r.Label, P50: layout.Case(r, size)?.LatencyUs.P50)).Where(x => x.P50 is not null)
            .Select(x => (x.Label, P50: x.P50!.Value)).OrderBy(x => x.P50).ToList();
        if (ranked.Count == 0)
        {
            return null;
        }
        var tied = ranked.TakeWhile(x => swing is double s && x.P50 - ranked[0].P50 < s).ToList();
        return tied.Count < 2
            ? $"{ranked[0].Label} {Units.Us(ranked[0].P50)} us"
            : $"{string.Join(", ", tied.Select(x => $"{x.Label} {Units.Us(x.P50)} us"))}, closer than the wake-up swing ({Units.Us(swing!.Value)} us): no ranking";
    }

    /// <summary>
    /// Each messaging or RPC transport's p50 as a multiple of tcp's, at the smallest and the largest size both ran; a
    /// multiple whose difference from tcp is under the wake-up swing is marked as such.
    /// </summary>
    private static string? OverTcp(RunLayout layout, double? swing)
    {
        var tcp = layout.Rows.FirstOrDefault(r => r.Transport == "tcp");
        if (tcp is null)
        {
            return null;
        }
        var candidates = layout.Rows.Where(r => r.Family is "messaging" or "rpc").ToList();
        var shared = layout.Sizes.Where(s => layout.Case(tcp, s) is not null && candidates.Any(r => layout.Case(r, s) is not null)).ToList();
        int[] sizes = shared.Count == 0 ? [] : [.. new[] { shared[0], shared[^1] }.Distinct()];
        var frameworks = candidates
            .Select(r => (r.Label, Ratios: sizes.Select(s => layout.Case(r, s) is { } c ? Ratio(c, layout.Case(tcp, s)!, swing) : Units.Missing).ToList()))
            .Where(f => f.Ratios.Any(x => x != Units.Missing)).ToList();
        if (frameworks.Count == 0)
        {
            return null;
        }
        string sentence = $"What each framework costs over tcp, p50 as a multiple of tcp's at {string.Join(" / ", sizes.Select(Units.Size))}: "
            + string.Join("; ", frameworks.Select(f => $"{f.Label} {string.Join(" / ", f.Ratios)}")) + ".";
        return frameworks.Any(f => f.Ratios.Any(r => r.EndsWith(WithinSwing, StringComparison.Ordinal)))
            ? $"{sentence} A multiple marked{WithinSwing} differs from tcp's by less than a round trip across CPUs moves with how the machine idles ({Units.Us(swing!.Value)} us): it ranks nothing."
            : sentence;
    }

    private const string WithinSwing = " (within the wake-up swing)";

    private static string Ratio(CaseResult c, CaseResult tcp, double? swing) =>
        Units.Ratio(c.LatencyUs.P50 / tcp.LatencyUs.P50)
        + (swing is double s && Math.Abs(c.LatencyUs.P50 - tcp.LatencyUs.P50) < s ? WithinSwing : "");
}
