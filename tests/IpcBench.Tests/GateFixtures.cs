using IpcBench.Reporting.Comparison;
using IpcBench.Reporting.History;

namespace IpcBench.Tests;

/// <summary>Gates and rounds as benchmarks/ab.sh keeps them, for the verbs that read them (history, keep).</summary>
internal static class GateFixtures
{
    /// <summary>
    /// A gate as benchmarks/ab.sh --keep leaves it in <paramref name="gate"/>: A/ and B/, six rounds each of tcp at 1 B
    /// (B a minute after A), and compare's verdicts.json of the two.
    /// </summary>
    public static string Keep(string gate, string baseCommit, string headCommit, DateTimeOffset at, double baseP50, double headP50)
    {
        SaveRounds(Path.Combine(gate, "A"), baseCommit, at, baseP50);
        SaveRounds(Path.Combine(gate, "B"), headCommit, at.AddMinutes(1), headP50);
        var comparison = RunComparison.Compare(RunPool.Read(Path.Combine(gate, "A")), RunPool.Read(Path.Combine(gate, "B")), 0.10);
        ComparisonJson.Write(Path.Combine(gate, GateVerdicts.FileName), comparison);
        return gate;
    }

    /// <summary>Six rounds of tcp at 1 B whose p50s lie within 3% of <paramref name="p50"/>, as one side of a gate keeps them.</summary>
    public static string SaveRounds(string folder, string commit, DateTimeOffset at, double p50, string? cpu = null)
    {
        for (int round = 1; round <= 6; round++)
        {
            double launch = p50 * (1 + (round % 3 - 1) * 0.03);
            var run = RunFixtures.With($"{at:yyyyMMdd-HHmmss}-ping-{round}",
                RunFixtures.FromSamples("tcp", 1, RunFixtures.Latencies(launch, 500, seed: round)).WithOptions("io=sync")) with
            {
                Kind = "ping",
                GitCommit = commit,
                StartedAt = at.AddSeconds(round),
            };
            if (cpu is not null)
            {
                run = run with { Environment = run.Environment with { CpuModel = cpu } };
            }
            RunFixtures.Save(Path.Combine(folder, $"tcp-1-round{round}"), run);
        }
        return folder;
    }
}
