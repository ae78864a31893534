using System.Diagnostics;
using IpcBench.Contract;
using IpcBench.Harness.Hosting;
using IpcBench.Kit.Files;
using IpcBench.Kit.Processes;

namespace IpcBench.Harness.Running;

/// <summary>
/// A plan's cases in rounds, each case a process launch of its own (<c>ipcbench ping ARGS --json FILE</c>): each round
/// runs every case once, in an order that rotates from round to round, so that a drift of the machine falls on every case
/// alike and no case always runs first or last. What a process launch draws (a fast or a slow mode) is the case's, once a
/// round; the figures of the rounds are its evidence.
/// </summary>
public static class Rounds
{
    /// <summary>The longest one case's process may take, start to exit.</summary>
    public static readonly TimeSpan CaseTimeout = TimeSpan.FromMinutes(30);

    /// <summary>One case of a plan: what ping is given for it, and a name for messages.</summary>
    public sealed record PlannedCase(string Name, IReadOnlyList<string> PingArguments);

    /// <summary>
    /// Runs <paramref name="cases"/> <paramref name="rounds"/> times, rotated; returns, per round, each case's results.json
    /// text in the order of <paramref name="cases"/>. A case that fails ends the run with its error.
    /// </summary>
    /// <param name="told">Where a line per case goes as it starts ("round 2 of 3: tcp 1 B").</param>
    public static async Task<IReadOnlyList<string[]>> RunAsync(IReadOnlyList<PlannedCase> cases, int rounds, Action<string> told, CancellationToken ct)
    {
        string directory = Path.GetDirectoryName(PrivateDirectory.Resolve(PrivateDirectory.DefaultPath("plan"), out string? created))!;
        try
        {
            var results = new List<string[]>();
            for (int round = 0; round < rounds; round++)
            {
                var texts = new string[cases.Count];
                foreach (int i in Rotated(cases.Count, round))
                {
                    told($"round {round + 1} of {rounds}: {cases[i].Name}");
                    string json = Path.Combine(directory, $"round-{round + 1}-case-{i + 1}.json");
                    await LaunchAsync(cases[i], json, ct).ConfigureAwait(false);
                    texts[i] = await File.ReadAllTextAsync(json, ct).ConfigureAwait(false);
                }
                results.Add(texts);
            }
            return results;
        }
        finally
        {
            PrivateDirectory.Remove(created);
        }
    }

    /// <summary>The order of round <paramref name="round"/>: the cases rotated by the round's number.</summary>
    public static IEnumerable<int> Rotated(int count, int round) => Enumerable.Range(0, count).Select(i => (i + round) % count);

    private static async Task LaunchAsync(PlannedCase planned, string json, CancellationToken ct)
    {
        var info = ServerCommand.Resolve().StartInfo(["ping", .. planned.PingArguments, "--no-results", "--json", json]);
        var ended = await BoundedChild.RunAsync(info, planned.Name, CaseTimeout, ct).ConfigureAwait(false);
        if (ended.ExitCode != 0)
        {
            throw new TransportException($"{planned.Name} failed (exit code {ended.ExitCode}): {ended.LastError}");
        }
    }
}
