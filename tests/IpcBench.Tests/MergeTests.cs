using IpcBench.Reporting;
using IpcBench.Reporting.Writers;

namespace IpcBench.Tests;

/// <summary><c>ipcbench merge</c>: runs measured apart as one run, each case named by its isolation, and the transport x isolation table.</summary>
public class MergeTests
{
    private static readonly DateTimeOffset Now = new(2026, 11, 23, 20, 0, 0, TimeSpan.Zero);

    private static RunResults Ping(string id, string options, double p50, double p99, string placement = "same-core") =>
        RunFixtures.With(id, RunFixtures.Case("tcp", options, 1, p50, p99, 50_000, null, 0).WithPlacement(placement));

    private static RunResults Merge(params MergeSource[] sources) => RunMerge.Merge(sources, [], Now, "ipcbench merge");

    [Fact]
    public void Each_source_names_its_cases_isolation_and_the_summary_sets_them_side_by_side_with_ratios_to_bare()
    {
        var merged = Merge(
            new MergeSource(Ping("bare", "io=sync", 10, 20), null),
            new MergeSource(Ping("netns", "io=sync&isolation=netns", 11, 22), null),
            new MergeSource(Ping("pair", "io=sync", 15, 40), "docker-bridge"));

        Assert.Equal(["io=sync", "io=sync&isolation=netns", "io=sync&isolation=docker-bridge"], merged.Cases.Select(c => c.Options));
        Assert.Equal("merge", merged.Kind);
        Assert.Contains(merged.Environment.Options.Values, v => v.StartsWith("pair (docker-bridge)", StringComparison.Ordinal));
        string summary = SummaryMarkdown.Render(merged);
        Assert.Contains("| transport | size | bare | netns | docker-bridge |", summary);
        Assert.Contains("| tcp | 1 B | 10.0 / 20.0 | 11.0 / 22.0 (1.10x) | 15.0 / 40.0 (1.50x) |", summary);
    }

    [Fact]
    public void A_run_of_one_isolation_has_no_isolation_table()
    {
        Assert.DoesNotContain("## Isolation", SummaryMarkdown.Render(Ping("bare", "io=sync", 10, 20)));
    }

    [Fact]
    public void An_isolation_a_transport_cannot_cross_reads_not_supported_with_the_reason()
    {
        var merged = RunMerge.Merge([new(Ping("bare", "io=sync", 10, 20), null), new(Ping("pair", "io=sync", 15, 40), "docker-bridge")],
            [RunMerge.ParseSkipped("tcp docker-vm-bridge no VM-isolating runtime is registered")], Now, "ipcbench merge");
        string summary = SummaryMarkdown.Render(merged);
        Assert.Contains("| 15.0 / 40.0 (1.50x) |", summary);
        Assert.Contains("Not supported: tcp in docker-vm-bridge: no VM-isolating runtime is registered", summary);
    }

    [Fact]
    public void A_case_a_plan_skipped_in_an_isolation_reads_not_supported_at_its_size_with_the_reason()
    {
        var sandbox = RunFixtures.With("sandbox", RunFixtures.Case("uds", "io=sync&isolation=sandbox", 1, 30, 60, 30_000, null, 0).WithPlacement("same-core")) with
        {
            Skipped = [new SkippedCase("tcp", "io=sync&isolation=sandbox", 1, "tcp is not supported in isolation sandbox here: why")],
        };
        string summary = SummaryMarkdown.Render(Merge(new MergeSource(Ping("bare", "io=sync", 10, 20), null), new MergeSource(sandbox, null)));
        Assert.Contains("| tcp | 1 B | 10.0 / 20.0 | not supported |", summary);
        Assert.Contains("| uds | 1 B | - | 30.0 / 60.0 |", summary);
        Assert.Contains("Not supported: tcp in sandbox: tcp is not supported in isolation sandbox here: why", summary);
    }

    [Fact]
    public void Runs_placed_differently_are_refused()
    {
        var e = Assert.Throws<ArgumentException>(() => Merge(
            new MergeSource(Ping("bare", "io=sync", 10, 20), null), new MergeSource(Ping("pair", "io=sync", 15, 40, placement: "none"), "docker-bridge")));
        Assert.Contains("placed differently", e.Message);
    }

    [Fact]
    public void A_label_that_contradicts_a_cases_own_isolation_or_names_a_case_twice_is_refused()
    {
        Assert.Contains("not docker-bridge", Assert.Throws<ArgumentException>(() =>
            Merge(new MergeSource(Ping("netns", "io=sync&isolation=netns", 11, 22), "docker-bridge"))).Message);
        Assert.Contains("more than one run", Assert.Throws<ArgumentException>(() =>
            Merge(new MergeSource(Ping("a", "io=sync", 10, 20), null), new MergeSource(Ping("b", "io=sync", 10, 20), null))).Message);
        Assert.Throws<ArgumentException>(() => RunMerge.ParseSkipped("tcp container"));
    }
}
