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
            string json = Path.Combine(folder, "rounds.json");
            var (exit, stdout, stderr) = await CliTests.RunWithAsync(null,
                "plan", "--transports", "tcp", "--rounds", "6", "--each", "--count 200 --warmup 10", "--no-results", "--json", json);

            Assert.True(exit == 0, stderr);
            using var rounds = JsonDocument.Parse(File.ReadAllText(json));
            Assert.Equal(6, rounds.RootElement.GetArrayLength());
            double[] p50s = [.. rounds.RootElement.EnumerateArray()
                .Select(r => r.GetProperty("cases")[0].GetProperty("latency_us").GetProperty("p50").GetDouble())];
            // Six launches: the 95% interval of their median is the least and the most of them.
            string range = FormattableString.Invariant($"{p50s.Min():0.0}-{p50s.Max():0.0}");
            Assert.Matches($@"tcp +1 B .* p50 +[0-9.]+ \[{Regex(range)}\] \({Regex(range)}\)", stdout);
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    private static string Regex(string text) => System.Text.RegularExpressions.Regex.Escape(text);
}
