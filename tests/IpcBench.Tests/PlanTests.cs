using System.Text.Json;

namespace IpcBench.Tests;

/// <summary><c>ipcbench plan</c> run for real: rounds of process launches, read as people and scripts read them.</summary>
public class PlanTests
{
    [Fact]
    public async Task Six_rounds_give_a_case_its_median_over_launches_with_an_interval_and_scripts_every_round()
    {
        string folder = Directory.CreateTempSubdirectory("ipcbench-test-plan-").FullName;
        try
        {
            string json = Path.Combine(folder, "rounds.json"), results = Path.Combine(folder, "results");
            var (exit, stdout, stderr) = await CliTests.RunWithAsync(null,
                "plan", "--transports", "tcp", "--rounds", "6", "--each", "--count 200 --warmup 10", "--results", results, "--json", json);

            Assert.True(exit == 0, stderr);
            using var rounds = JsonDocument.Parse(File.ReadAllText(json));
            Assert.Equal(6, rounds.RootElement.GetArrayLength());
            double[] p50s = [.. rounds.RootElement.EnumerateArray()
                .Select(r => r.GetProperty("cases")[0].GetProperty("latency_us").GetProperty("p50").GetDouble())];
            // Six launches: the 95% interval of their median is the least and the most of them.
            string range = FormattableString.Invariant($"{p50s.Min():0.0}-{p50s.Max():0.0}");
            Assert.Matches($@"tcp +1 B .* p50 +[0-9.]+ \[{Regex(range)}\] \({Regex(range)}\)", stdout);

            // The rounds' reports together, ranking first: the median round's p50 (the lower middle of six), the same
            // figure the latency table gives, and the interval; its chart drawn in report.html's ranking section.
            string run = Directory.GetDirectories(results).Single();
            string summary = File.ReadAllText(Path.Combine(run, "summary.md"));
            string median = FormattableString.Invariant($"{p50s.Order().ElementAt(2):0.0}");
            Assert.Matches($@"\| 1 \| tcp[^|]*\| {Regex(median)} \| {Regex(range.Replace("-", " - "))} \| 6 \| 1 \|", summary);
            Assert.Matches($@"\| tcp[^|]*\| {Regex(median)} / ", summary);
            Assert.True(summary.IndexOf("## Ranking at 1 B", StringComparison.Ordinal) < summary.IndexOf("## Latency", StringComparison.Ordinal));
            Assert.True(File.Exists(Path.Combine(run, "ranking-1B.svg")));
            Assert.Contains("<figure id=\"ranking-1B.svg\">", File.ReadAllText(Path.Combine(run, "report.html")));
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    private static string Regex(string text) => System.Text.RegularExpressions.Regex.Escape(text);
}
