using IpcBench.Reporting.Collecting;

namespace IpcBench.Reporting.Comparison;

/// <summary>
/// Rounds of the same cases (a plan's with --rounds, an A/B gate's, benchmarks/ab.sh) read as one run: each case's
/// figures those of its median round, its requests, errors and samples every round's, and each round's p50 kept
/// (<see cref="CaseResult.LaunchP50sUs"/>): what varies from round to round is the process, so compare judges the
/// rounds (<see cref="LaunchRatio"/>), not the pooled requests. Rounds measured apart (another placement, machine,
/// runtime) are refused.
/// </summary>
public static class RunPool
{
    /// <summary>
    /// The results at <paramref name="path"/>: a run folder or results.json as <see cref="ResultsFile.Read"/> reads it, or a
    /// folder of run folders (at any depth) pooled.
    /// </summary>
    /// <exception cref="ResultsFormatException">As <see cref="ResultsFile.Read"/>, or a folder with no run in it.</exception>
    /// <exception cref="NotComparableException">Its rounds differ in a setting that moves every figure.</exception>
    public static RunResults Read(string path)
    {
        if (!Directory.Exists(path) || File.Exists(Path.Combine(path, ResultsFile.FileName)))
        {
            return ResultsFile.Read(path);
        }
        var rounds = Directory.EnumerateFiles(path, ResultsFile.FileName, SearchOption.AllDirectories).Order(StringComparer.Ordinal)
            .Select(file => ResultsFile.Read(Path.GetDirectoryName(file)!)).ToList();
        return rounds.Count > 0 ? Pool(rounds) : throw new ResultsFormatException($"{path} holds no {ResultsFile.FileName}, nor a run folder under it");
    }

    public static RunResults Pool(IReadOnlyList<RunResults> rounds)
    {
        var first = rounds[0];
        if (rounds.Skip(1).SelectMany(r => Comparability.Differences(first, r)).ToList() is { Count: > 0 } differences)
        {
            throw new NotComparableException(differences);
        }
        var cases = rounds.SelectMany(r => r.Cases)
            .GroupBy(c => c.Key)
            .Select(g => Pooled([.. g])).ToList();
        return first with
        {
            Id = $"{first.Id} and {rounds.Count - 1} more",
            Cases = cases,
            Skipped = [.. rounds.SelectMany(r => r.Skipped).Distinct()],
        };
    }

    /// <summary>
    /// Every round's samples, taken in turn (the first of each round, then the second ...): each round's are a random
    /// subsample, so any prefix of these is one of every round alike, and the rank test, which reads the first
    /// <see cref="RankTest.MaxPerSide"/>, sees every round.
    /// </summary>
    private static double[] Interleaved(IReadOnlyList<IReadOnlyList<double>> rounds) =>
        [.. Enumerable.Range(0, rounds.Max(r => r.Count)).SelectMany(i => rounds.Where(r => i < r.Count).Select(r => r[i]))];

    /// <summary>
    /// One case's launches (a plan's rounds, the suite's --launchCount) as one: the median launch (by p50, as
    /// <see cref="LaunchMedian"/> picks it) with every launch's requests, errors, samples and p50s.
    /// </summary>
    public static CaseResult Pooled(IReadOnlyList<CaseResult> rounds) => rounds.OrderBy(c => c.LatencyUs.P50).ElementAt(LaunchMedian.MedianIndex(rounds.Count)) with
    {
        Count = rounds.Sum(c => c.Count),
        Errors = rounds.Sum(c => c.Errors),
        SamplesUs = Interleaved([.. rounds.Select(c => c.SamplesUs)]),
        LaunchP50sUs = [.. rounds.SelectMany(c => c.Launches)],
    };
}
