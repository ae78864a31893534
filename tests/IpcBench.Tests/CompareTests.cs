using IpcBench.Cli;
using IpcBench.Cli.Commands;
using IpcBench.Reporting;
using IpcBench.Reporting.Comparison;

namespace IpcBench.Tests;

/// <summary>Comparisons of made-up runs whose answer is known.</summary>
public sealed class CompareTests : IDisposable
{
    private readonly string _dir = Path.Combine(Path.GetTempPath(), $"ipcbench-compare-{Guid.NewGuid():N}");

    public CompareTests() => Directory.CreateDirectory(_dir);

    public void Dispose() => Directory.Delete(_dir, recursive: true);

    private static RunResults Run(string id, params CaseResult[] cases) => RunFixtures.With(id, cases);

    private static CaseResult Tcp(IReadOnlyList<double> samples, int size = 1) => RunFixtures.FromSamples("tcp", size, samples);

    private string Save(RunResults run) => RunFixtures.Save(_dir, run);

    [Fact]
    public void A_2x_slowdown_is_slower_and_exits_1()
    {
        double[] before = RunFixtures.Latencies(15, seed: 1);
        var baseline = Run("base", Tcp(before));
        var current = Run("current", Tcp(before.Select(v => v * 2).ToArray()));

        var c = Assert.Single(RunComparison.Compare(baseline, current, 0.10).Cases);
        Assert.Equal(Verdict.Slower, c.Verdict);
        Assert.Equal(1.0, c.P50Change, 6);
        Assert.True(c.PValue < 1e-6, $"p = {c.PValue}");
        Assert.Equal(1, Compare(Save(baseline), Save(current)));
    }

    [Fact]
    public void A_2x_speedup_is_faster_and_exits_0()
    {
        double[] before = RunFixtures.Latencies(30, seed: 2);
        var cmp = RunComparison.Compare(Run("base", Tcp(before)), Run("current", Tcp(before.Select(v => v / 2).ToArray())), 0.10);
        Assert.Equal(Verdict.Faster, Assert.Single(cmp.Cases).Verdict);
        Assert.False(cmp.Any([Verdict.Slower]));
    }

    [Fact]
    public void Identical_samples_are_the_same()
    {
        double[] samples = RunFixtures.Latencies(15, seed: 3);
        var baseline = Run("base", Tcp(samples));
        var c = Assert.Single(RunComparison.Compare(baseline, baseline with { Id = "current" }, 0.10).Cases);
        Assert.Equal(Verdict.Same, c.Verdict);
        Assert.Equal(0, c.P50Change);
        Assert.Equal(1, c.PValue, 9);
        Assert.Equal(0, Compare(Save(baseline), Save(baseline with { Id = "current" })));
    }

    [Fact]
    public void Noisy_samples_with_the_same_median_are_the_same()
    {
        // Another draw with twice the spread: the tails differ a lot, the median not at all.
        double[] before = RunFixtures.Latencies(20, seed: 4, spread: 0.1);
        double[] after = RunFixtures.Latencies(20, seed: 5, spread: 0.2);
        var c = Assert.Single(RunComparison.Compare(Run("base", Tcp(before)), Run("current", Tcp(after)), 0.10).Cases);
        Assert.InRange(c.P50Change, -0.02, 0.02);
        Assert.True(c.P99Change > 0.3, $"p99 change {c.P99Change}");
        Assert.Equal(Verdict.Same, c.Verdict);
    }

    [Fact]
    public void A_real_but_small_shift_is_the_same_under_the_threshold()
    {
        // 5% slower throughout: the test is sure (p tiny), but 5% is under the 10% that matters.
        double[] before = RunFixtures.Latencies(15, seed: 6);
        var c = Assert.Single(RunComparison.Compare(Run("base", Tcp(before)), Run("current", Tcp(before.Select(v => v * 1.05).ToArray())), 0.10).Cases);
        Assert.True(c.PValue < 0.01, $"p = {c.PValue}");
        Assert.Equal(Verdict.Same, c.Verdict);
        Assert.Equal(Verdict.Slower, Assert.Single(RunComparison.Compare(Run("base", Tcp(before)),
            Run("current", Tcp(before.Select(v => v * 1.05).ToArray())), 0.03).Cases).Verdict);
    }

    [Fact]
    public void A_big_median_change_on_too_few_samples_is_the_same()
    {
        // +50% at p50, but three requests each way cannot reach p < 0.01.
        var c = Assert.Single(RunComparison.Compare(Run("base", Tcp([10, 11, 12])), Run("current", Tcp([15, 16.5, 18])), 0.10).Cases);
        Assert.True(c.P50Change > 0.4);
        Assert.True(c.PValue >= 0.01, $"p = {c.PValue}");
        Assert.Equal(Verdict.Same, c.Verdict);
    }

    [Fact]
    public void Cases_in_one_run_only_are_added_or_removed_not_failures()
    {
        double[] s = RunFixtures.Latencies(15, seed: 7);
        var baseline = Run("base", Tcp(s, 1), Tcp(s, 1024));
        var current = Run("current", Tcp(s, 1), RunFixtures.FromSamples("uds", 1, s.Select(v => v * 3).ToArray()));
        var cmp = RunComparison.Compare(baseline, current, 0.10);
        Assert.Equal(1, Assert.Single(cmp.Cases).Current.Size);
        Assert.Equal("uds", Assert.Single(cmp.Added).Transport);
        Assert.Equal(1024, Assert.Single(cmp.Removed).Size);
        string md = ComparisonMarkdown.Render(cmp);
        Assert.Contains("- added (only in current): uds io=sync at 1 B", md);
        Assert.Contains("- removed (only in base): tcp io=sync at 1 KB", md);
        Assert.Contains("0 slower, 0 faster, 1 same, 0 cannot tell; 1 added, 1 removed.", md);
        Assert.Equal(0, Compare(Save(baseline), Save(current)));
    }

    /// <summary>--json: what a script reads (.ci/run reads the A/B gate's verdicts from it), one record per case in both runs.</summary>
    [Fact]
    public void The_json_gives_each_cases_key_verdict_p50_change_and_p_value()
    {
        double[] s = RunFixtures.Latencies(15, seed: 9);
        var baseline = Run("base", Tcp(s, 1), Tcp(s, 1024), Tcp(s, 65536));
        var current = Run("current", Tcp(s.Select(v => v * 2).ToArray(), 1), Tcp(s, 1024), RunFixtures.FromSamples("uds", 1, s));
        string json = Path.Combine(_dir, "verdicts.json");

        Assert.Equal(1, Compare(Save(baseline), Save(current), "--json", json, "--threshold", "15%"));

        using var verdicts = System.Text.Json.JsonDocument.Parse(File.ReadAllText(json));
        var root = verdicts.RootElement;
        Assert.Equal(("base", "current", 0.15), (root.GetProperty("baseline").GetString(), root.GetProperty("current").GetString(), root.GetProperty("threshold").GetDouble()));
        var cases = root.GetProperty("cases").EnumerateArray().ToList();
        Assert.Equal(2, cases.Count); // the added and the removed case are not verdicts
        var slower = Assert.Single(cases, c => c.GetProperty("key").GetProperty("size").GetInt32() == 1);
        var key = slower.GetProperty("key");
        Assert.Equal(("tcp", "io=sync", "same-core"), (key.GetProperty("transport").GetString(), key.GetProperty("options").GetString(), key.GetProperty("placement").GetString()));
        Assert.Equal("slower", slower.GetProperty("verdict").GetString());
        Assert.Equal(1.0, slower.GetProperty("p50_change").GetDouble(), 6);
        Assert.True(slower.GetProperty("p_value").GetDouble() < 1e-6);
        var same = Assert.Single(cases, c => c.GetProperty("key").GetProperty("size").GetInt32() == 1024);
        Assert.Equal(("same", 0.0, 1.0), (same.GetProperty("verdict").GetString(), same.GetProperty("p50_change").GetDouble(), Math.Round(same.GetProperty("p_value").GetDouble(), 9)));
    }

    [Fact]
    public void Runs_that_cannot_be_compared_write_no_json()
    {
        double[] s = RunFixtures.Latencies(15, seed: 10);
        string json = Path.Combine(_dir, "verdicts.json");
        Assert.Equal(2, Compare(Save(Run("base", Tcp(s, 1))), Save(Run("current", Tcp(s, 1024))), "--json", json)); // no case in common
        Assert.False(File.Exists(json));
    }

    [Fact]
    public void Options_match_in_any_order()
    {
        double[] s = RunFixtures.Latencies(2, seed: 8);
        var a = RunFixtures.FromSamples("mmf", 1, s).WithOptions("io=sync&wait=spin");
        var b = a.WithOptions("wait=spin&io=sync");
        Assert.Single(RunComparison.Compare(Run("base", a), Run("current", b), 0.10).Cases);
    }

    [Fact]
    public void The_table_shows_both_runs_figures_and_the_verdict()
    {
        double[] before = RunFixtures.Latencies(15, seed: 9);
        var cmp = RunComparison.Compare(Run("base", Tcp(before)), Run("current", Tcp(before.Select(v => v * 2).ToArray())), 0.15);
        string md = ComparisonMarkdown.Render(cmp);
        string row = Assert.Single(md.Split('\n'), l => l.StartsWith("| tcp |", StringComparison.Ordinal));
        var cells = row.Trim('|').Split('|').Select(c => c.Trim()).ToArray();
        Assert.Equal(["tcp", "1 B"], cells[..2]);
        Assert.Equal("+100.0%", cells[4]);
        Assert.Equal(["-", "1+1"], cells[5..7]); // one launch a side: judged by its requests, no interval
        Assert.Equal("-50.0%", cells[10]);
        Assert.Equal("<0.001", cells[11]);
        Assert.Equal("**slower**", cells[12]);
        Assert.Contains("more than 15%", md);
        Assert.Contains("1 slower, 0 faster, 0 same, 0 cannot tell.", md);
    }

    [Fact]
    public void Runs_on_different_placements_are_not_comparable_and_exit_2()
    {
        double[] s = RunFixtures.Latencies(15, seed: 10);
        var baseline = Run("base", Tcp(s));
        var current = Run("current", Tcp(s)) with { Environment = RunFixtures.Environment("none") };
        var e = Assert.Throws<NotComparableException>(() => RunComparison.Compare(baseline, current, 0.10));
        var d = Assert.Single(e.Differences);
        Assert.Equal(("placement", "same-core", "none"), (d.Key, d.Baseline, d.Current));
        Assert.Equal(2, Compare(Save(baseline), Save(current)));

        // Never allowed: a round trip across CPUs pays the machine's wake-ups, one on one CPU does not.
        Assert.Throws<NotComparableException>(() => RunComparison.Compare(baseline, current, 0.10, allowDifferent: ["placement"]));
        Assert.Equal(2, Compare(Save(baseline), Save(current), "--allow-different", "placement"));
    }

    [Fact]
    public void Every_setting_that_moves_every_figure_is_named()
    {
        double[] s = RunFixtures.Latencies(15, seed: 12);
        var baseline = Run("base", Tcp(s));
        var env = RunFixtures.Environment() with { Isolation = "bare", CpuModel = "Other CPU", Runtime = ".NET 10.0.5" };
        var current = Run("current", Tcp(s).WithOptions("io=async")) with { Environment = env };
        var e = Assert.Throws<NotComparableException>(() => RunComparison.Compare(baseline, current, 0.10));
        Assert.Equal(["isolation", "machine", "runtime", "io"], e.Differences.Select(d => d.Key));
        Assert.Equal("io differs (baseline sync, current async)", e.Differences[^1].ToString());
        // Allowing some is not allowing all.
        Assert.Equal(2, Compare(Save(baseline), Save(current), "--allow-different", "isolation,machine,runtime"));
        Assert.Equal(2, Compare(Save(baseline), Save(current), "--allow-different", "isolation,machine,runtime,io")); // then no case in common
    }

    [Fact]
    public void A_run_with_more_kinds_of_case_is_comparable_on_those_it_shares()
    {
        // The current run adds 4-client and cold-start cases: the single-client cases still match, the rest are added.
        double[] s = RunFixtures.Latencies(15, seed: 13);
        var current = Run("current", Tcp(s), Tcp(s).WithOptions("clients=4&io=sync"), Tcp(s).WithOptions("io=sync&scenario=connect"));
        var cmp = RunComparison.Compare(Run("base", Tcp(s)), current, 0.10);
        Assert.Single(cmp.Cases);
        Assert.Equal(2, cmp.Added.Count);
        Assert.Empty(cmp.AllowedDifferences);
    }

    [Fact]
    public void Malformed_or_incompatible_inputs_exit_2()
    {
        double[] s = RunFixtures.Latencies(15, seed: 11);
        string good = Save(Run("good", Tcp(s)));
        string garbage = Path.Combine(_dir, "garbage.json");
        File.WriteAllText(garbage, "{\"schema\": \"ipcbench-results/1\", \"cases\": [");
        string newer = Path.Combine(_dir, "newer.json");
        File.WriteAllText(newer, ResultsFile.Serialize(Run("newer", Tcp(s))).Replace("ipcbench-results/1", "ipcbench-results/2"));
        string other = Save(Run("other", RunFixtures.FromSamples("uds", 1, s)));

        Assert.Equal(2, Compare(good, garbage));
        Assert.Equal(2, Compare(newer, good));
        Assert.Equal(2, Compare(good, other)); // no case in common
        Assert.Equal(2, Compare(good, Path.Combine(_dir, "missing")));
        Assert.Throws<IncomparableRunsException>(() => RunComparison.Compare(ResultsFile.Read(good), ResultsFile.Read(other), 0.1));
    }

    [Theory]
    [InlineData("10%", 0.10)]
    [InlineData("15", 0.15)]
    [InlineData("7.5%", 0.075)]
    public void Thresholds_are_percentages(string text, double expected) => Assert.Equal(expected, CompareCommand.ParseThreshold(text)!.Value, 9);

    [Theory]
    [InlineData("0")]
    [InlineData("-5%")]
    [InlineData("ten")]
    public void Bad_thresholds_are_usage_errors(string text)
    {
        Assert.Null(CompareCommand.ParseThreshold(text));
        Assert.Equal(2, Compare("a", "b", "--threshold", text));
    }

    [Fact]
    public void Folders_of_rounds_are_pooled_each_case_its_median_round_with_every_rounds_samples_and_p50s()
    {
        // Rounds of an A/B gate: three of A, three of B; B's one odd round (a stall) is not its median.
        string before = Rounds("a", 15, 15.5, 14.5), after = Rounds("b", 15, 40, 15.2);

        var pooled = RunPool.Read(after);
        var tcp = Assert.Single(pooled.Cases);
        Assert.Equal(3 * 2000, tcp.SamplesUs.Count);
        Assert.Equal(P50(15.2, seed: 3), tcp.LatencyUs.P50);
        Assert.Equal(new[] { P50(15, seed: 1), P50(40, seed: 2), P50(15.2, seed: 3) }.Order(), tcp.LaunchP50sUs!.Order());
        Assert.Equal(3 * 50_000, tcp.Count);
        Assert.Equal(0, Compare(before, after)); // three launches a side bound no 95% interval: cannot tell

        // A round measured at another placement is not a round of the same cases.
        RunFixtures.Save(Path.Combine(after, "round9"), Run("b9", Tcp(RunFixtures.Latencies(15, seed: 9)).WithPlacement("none"))
            with { Environment = RunFixtures.Environment("none") });
        Assert.Throws<NotComparableException>(() => RunPool.Read(after));
        Assert.Equal(2, Compare(before, after));
    }

    [Fact]
    public void One_build_whose_p50_lands_per_launch_is_never_slower_than_itself_though_its_requests_differ()
    {
        // .ci/run on c8537a2, tcp 1 B, 20,000 requests a launch, same-core: one build's launches, A then B. Pooled and
        // judged by requests (the fastest round, 80,000 samples), this read "+11.0% slower, p < 0.001".
        string a = Rounds("a", 28.5, 26.3, 25.2, 19.7), b = Rounds("b", 27.4, 21.8, 31.1, 26.6);

        var c = Assert.Single(RunComparison.Compare(RunPool.Read(a), RunPool.Read(b), 0.10).Cases);

        Assert.Equal(Verdict.CannotTell, c.Verdict);
        Assert.True(c.P50Ratio!.Low < 1 && c.P50Ratio.High > 1.1, $"{c.P50Ratio}");
        Assert.Equal(0, Compare(a, b, "--json", Path.Combine(_dir, "v.json")));
        Assert.Contains("\"verdict\": \"cannot-tell\"", File.ReadAllText(Path.Combine(_dir, "v.json")));
    }

    [Fact]
    public void Launches_a_fifth_slower_every_time_are_slower_and_launches_alike_are_the_same()
    {
        double[] a = [20.0, 20.3, 19.8, 20.5, 19.9, 20.2, 20.1, 19.7];
        string before = Rounds("a", a);
        string slower = Rounds("slower", [.. a.Reverse().Select(p => p * 1.2)]);
        string alike = Rounds("alike", [.. a.Reverse().Select(p => p * 1.01)]);

        var s = Assert.Single(RunComparison.Compare(RunPool.Read(before), RunPool.Read(slower), 0.10).Cases);
        Assert.Equal(Verdict.Slower, s.Verdict);
        Assert.Equal(0.2, s.P50Change, 2);
        Assert.Equal(1, Compare(before, slower));
        Assert.Equal(Verdict.Same, Assert.Single(RunComparison.Compare(RunPool.Read(before), RunPool.Read(alike), 0.10).Cases).Verdict);
        Assert.Equal(Verdict.Faster, Assert.Single(RunComparison.Compare(RunPool.Read(slower), RunPool.Read(before), 0.10).Cases).Verdict);
        var wide = RunComparison.Compare(RunPool.Read(before), RunPool.Read(Rounds("wide", 18, 30, 21, 26, 19, 28, 22, 25)), 0.10);
        Assert.Equal(Verdict.CannotTell, Assert.Single(wide.Cases).Verdict);
        Assert.EndsWith("0 slower, 0 faster, 0 same, 1 cannot tell.\n", ComparisonMarkdown.Render(wide));
    }

    [Fact]
    public void Fail_on_names_the_verdicts_that_exit_1_and_only_those()
    {
        double[] a = [20.0, 20.3, 19.8, 20.5, 19.9, 20.2, 20.1, 19.7];
        string before = Rounds("a", a), slower = Rounds("slower", [.. a.Reverse().Select(p => p * 1.2)]);

        Assert.Equal(0, Compare(before, before, "--fail-on", "slower,faster,cannot-tell")); // every case the same
        Assert.Equal(1, Compare(before, before, "--fail-on", "same"));
        Assert.Equal(0, Compare(before, slower, "--fail-on", "same,faster,cannot-tell")); // every case slower
        Assert.Equal(0, Compare(before, slower, "--fail-on", "faster")); // slower fails only by default
        Assert.Equal(1, Compare(slower, before, "--fail-on", "slower", "--fail-on", "faster")); // given twice: both
        Assert.Equal(2, Compare(before, slower, "--fail-on", "slower,worse"));
    }

    /// <summary>A folder of rounds of tcp at 1 B, round i's latencies around <paramref name="p50s"/>[i] (seed i + 1).</summary>
    private string Rounds(string side, params double[] p50s)
    {
        string folder = Path.Combine(_dir, side);
        for (int i = 0; i < p50s.Length; i++)
        {
            RunFixtures.Save(Path.Combine(folder, $"round{i}"), Run($"{side}{i}", Tcp(RunFixtures.Latencies(p50s[i], seed: i + 1))));
        }
        return folder;
    }

    private static double P50(double median, int seed) => Tcp(RunFixtures.Latencies(median, seed: seed)).LatencyUs.P50;

    /// <summary><c>ipcbench compare ARGS</c>, in this process: its exit code.</summary>
    private static int Compare(params string[] args) => IpcbenchCommand.RunAsync(["compare", .. args]).GetAwaiter().GetResult();
}
