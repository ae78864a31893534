using IpcBench.Reporting;

namespace IpcBench.Tests;

/// <summary><c>ipcbench report</c> and <c>ipcbench compare</c> run as processes, the way CI runs them.</summary>
public sealed class ReportCliTests : IDisposable
{
    private readonly string _dir = Path.Combine(Path.GetTempPath(), $"ipcbench-report-{Guid.NewGuid():N}");

    public ReportCliTests() => Directory.CreateDirectory(_dir);

    public void Dispose() => Directory.Delete(_dir, recursive: true);

    private string Save(RunResults run) => RunFixtures.Save(_dir, run);

    [Fact]
    public async Task Report_regenerates_every_file_from_results_json()
    {
        string folder = Save(RunFixtures.Bench());
        File.WriteAllText(Path.Combine(folder, "summary.md"), "stale");

        var (exit, stdout, stderr) = await CliTests.RunWithAsync(null, "report", folder);

        Assert.True(exit == 0, stderr);
        Assert.Equal(Snapshot.Read("summary.md"), File.ReadAllText(Path.Combine(folder, "summary.md")));
        Assert.Equal(Snapshot.Read("summary.csv"), File.ReadAllText(Path.Combine(folder, "summary.csv")));
        foreach (string file in new[] { "summary.md", "summary.csv", "env.md", "latency-by-size.svg", "percentiles.svg" })
        {
            Assert.Contains(Path.Combine(folder, file), stdout);
            Assert.True(File.Exists(Path.Combine(folder, file)), $"missing {file}");
        }
    }

    [Fact]
    public async Task Report_of_a_folder_without_results_exits_2()
    {
        var (exit, _, stderr) = await CliTests.RunWithAsync(null, "report", _dir);
        Assert.Equal(2, exit);
        Assert.Contains("holds no results.json", stderr);
        Assert.Single(stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries));
    }

    [Theory]
    [InlineData("report")]
    [InlineData("compare")]
    [InlineData("merge")]
    public async Task A_figure_past_any_measurement_is_refused_in_one_line_that_names_it(string verb)
    {
        var run = RunFixtures.Bench();
        string good = RunFixtures.Save(_dir, run);
        string bad = RunFixtures.Save(_dir, run with { Id = "damaged", Cases = [run.Cases[0] with { LatencyUs = run.Cases[0].LatencyUs with { P99 = 1.5e308 } }, .. run.Cases.Skip(1)] });
        string[] args = verb switch
        {
            "report" => ["report", bad],
            "compare" => ["compare", good, bad],
            _ => ["merge", good, bad, "--into", _dir],
        };

        var (exit, _, stderr) = await CliTests.RunWithAsync(null, args);

        Assert.Equal(2, exit);
        Assert.Single(stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.Contains("cases[0].latency_us.p99 is 1.5E+308", stderr);
    }

    [Fact]
    public async Task Compare_flags_a_2x_slowdown_and_exits_1()
    {
        double[] before = RunFixtures.Latencies(15, seed: 21);
        string baseline = Save(RunFixtures.With("20261122-000000-bench", RunFixtures.FromSamples("tcp", 1, before)));
        string current = Save(RunFixtures.With("20261122-010000-bench", RunFixtures.FromSamples("tcp", 1, before.Select(v => v * 2).ToArray())));

        var (exit, stdout, stderr) = await CliTests.RunWithAsync(null, "compare", baseline, Path.Combine(current, "results.json"), "--threshold", "15%");

        Assert.True(exit == 1, $"exit {exit}: {stderr}");
        Assert.Contains("| tcp | 1 B |", stdout);
        Assert.Contains("**slower**", stdout);
        Assert.Contains("1 slower, 0 faster, 0 same, 0 cannot tell.", stdout);
    }
}
