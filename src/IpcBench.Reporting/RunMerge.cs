using IpcBench.Reporting.Collecting;

namespace IpcBench.Reporting;

/// <summary>A merge input: a run and, when given, the isolation its cases ran in (e.g. "docker-bridge").</summary>
public sealed record MergeSource(RunResults Run, string? Isolation);

/// <summary>
/// Several runs as one, so that figures measured apart (a bare ping, a ping in a namespace, pings in container pairs) sit
/// in one table: each case keeps its own options, with the isolation its source names added. Runs whose cases were
/// placed differently are refused: their figures could not be read side by side.
/// </summary>
public static class RunMerge
{
    /// <exception cref="ArgumentException">No source; placements differ; a case's own isolation contradicts its source's; a case twice.</exception>
    public static RunResults Merge(IReadOnlyList<MergeSource> sources, IReadOnlyList<SkippedCase> skipped, DateTimeOffset now, string commandLine)
    {
        if (sources.Count == 0)
        {
            throw new ArgumentException("nothing to merge");
        }
        var placements = sources.SelectMany(s => s.Run.Cases).Select(c => c.Placement).Distinct().ToList();
        if (placements.Count > 1)
        {
            throw new ArgumentException($"the runs' cases were placed differently ({string.Join(", ", placements)}): their figures are not comparable");
        }
        var cases = sources.SelectMany(s => s.Run.Cases.Select(c => WithIsolation(c, s.Isolation, s.Run.Id))).ToList();
        if (cases.GroupBy(c => (c.Transport, c.Options, c.Size)).FirstOrDefault(g => g.Count() > 1) is { } twice)
        {
            throw new ArgumentException($"{twice.Key.Transport} {twice.Key.Options} at {twice.Key.Size} B is in more than one run; name their isolations apart");
        }
        var first = sources[0].Run;
        var options = new SortedDictionary<string, string>(StringComparer.Ordinal);
        foreach (var (source, index) in sources.Select((s, i) => (s, i + 1)))
        {
            var env = source.Run.Environment;
            options[$"source {index}"] = $"{source.Run.Id} ({source.Isolation ?? "as recorded"}): isolation {env.Isolation}, "
                + $"placement {env.Placement}, cpu limits {env.CpuLimits ?? "unknown"}, {env.LogicalCpus} logical CPUs";
        }
        return new RunResults
        {
            Schema = RunResults.CurrentSchema,
            Id = RunFolder.Id(now, "merge"),
            Kind = "merge",
            StartedAt = sources.Min(s => s.Run.StartedAt),
            GitCommit = first.GitCommit,
            CommandLine = commandLine,
            Environment = first.Environment with
            {
                Isolation = string.Join(", ", sources.Select(s => s.Isolation ?? s.Run.Environment.Isolation).Distinct()),
                IsolationEvidence = "merged runs: see the sources",
                Options = options,
            },
            Cases = cases,
            Skipped = [.. sources.SelectMany(s => s.Run.Skipped), .. skipped],
        };
    }

    /// <summary>"TRANSPORT ISOLATION REASON...": a case that could not run in an isolation, as a merge records it.</summary>
    public static SkippedCase ParseSkipped(string text)
    {
        string[] parts = text.Trim().Split(' ', 3, StringSplitOptions.RemoveEmptyEntries);
        return parts.Length == 3
            ? new SkippedCase(parts[0], $"isolation={parts[1]}", null, parts[2])
            : throw new ArgumentException($"--skipped takes 'TRANSPORT ISOLATION REASON', not '{text}'");
    }

    private static CaseResult WithIsolation(CaseResult c, string? isolation, string runId)
    {
        if (isolation is null)
        {
            return c;
        }
        if (c.Key.Isolation is { } own && own != isolation)
        {
            throw new ArgumentException($"run {runId} holds cases of isolation {own}, not {isolation}");
        }
        return c with { Key = c.Key with { Isolation = isolation } };
    }
}
