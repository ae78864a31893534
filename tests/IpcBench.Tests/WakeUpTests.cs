using IpcBench.Harness.Hosting;
using IpcBench.Reporting;
using IpcBench.Reporting.Writers;

namespace IpcBench.Tests;

/// <summary>The wake-up probe, and summaries that rank cases only where the machine's wake-ups cannot have done it.</summary>
public class WakeUpTests
{
    // RunFixtures' machine: a hand-off on one CPU 2.1 us, another CPU's wake-up 24.8 us idle and 6.2 us kept awake, so a
    // round trip across CPUs moves by 2 x (24.8 - 2.1) = 45.4 us with how the machine idles.
    private static RunResults Run(string placement, params (string Transport, double P50)[] cases) =>
        RunFixtures.With("20261125-100000-bench", [.. cases.Select(c =>
            RunFixtures.Case(c.Transport, "", 1, p50: c.P50, p99: c.P50 * 2, rps: 1e6 / c.P50, serverCpu: 5, allocated: 0).WithPlacement(placement))]);

    [Fact]
    public void The_probe_measures_a_hand_off_on_one_cpu_and_across_two()
    {
        var cost = WakeUpProbe.Measure();
        if (!OperatingSystem.IsLinux())
        {
            Assert.Null(cost);
            return;
        }
        Assert.NotNull(cost);
        Assert.InRange(cost.OneCpuUs, 0.01, 100_000);
        if (CpuAffinity.UsableCpus().Count > 1)
        {
            Assert.InRange(cost.CrossCpuIdleUs!.Value, 0.01, 100_000);
            Assert.InRange(cost.CrossCpuAwakeUs!.Value, 0.01, 100_000);
        }
    }

    [Fact]
    public void Across_cpus_a_difference_under_the_swing_is_not_ranked()
    {
        var sentences = RunDigest.Sentences(Run("none", ("tcp", 30), ("udp", 25), ("grpc", 60)));
        Assert.Contains(sentences, s => s.StartsWith("A round trip at placement none pays up to two wake-ups of another CPU", StringComparison.Ordinal)
            && s.Contains("can move by 45.4 us with how the machine idles", StringComparison.Ordinal));
        Assert.Contains("sockets: udp 25.0 us, tcp 30.0 us, closer than the wake-up swing (45.4 us): no ranking", Fastest(sentences));
        string overTcp = Assert.Single(sentences, s => s.StartsWith("What each framework costs over tcp", StringComparison.Ordinal));
        Assert.Contains("grpc 2.0x (within the wake-up swing)", overTcp); // 30 us apart, under 45.4
        Assert.Contains("it ranks nothing", overTcp);
    }

    [Fact]
    public void Across_cpus_a_difference_over_the_swing_is_ranked()
    {
        var sentences = RunDigest.Sentences(Run("cross-core", ("tcp", 30), ("udp", 80), ("grpc", 300)));
        Assert.Contains("sockets: tcp 30.0 us;", Fastest(sentences));
        Assert.DoesNotContain("swing", Fastest(sentences));
        Assert.Contains(sentences, s => s.Contains("grpc 10x.", StringComparison.Ordinal));
    }

    [Fact]
    public void On_one_cpu_the_ranking_stands_and_the_summary_says_why()
    {
        var sentences = RunDigest.Sentences(Run("same-core", ("tcp", 30), ("udp", 25), ("grpc", 60)));
        Assert.StartsWith("Client and server took turns on one CPU (same-core), so no figure here waits for a CPU to wake", sentences[0]);
        Assert.Contains("sockets: udp 25.0 us;", Fastest(sentences));
        Assert.DoesNotContain(sentences, s => s.Contains("swing", StringComparison.Ordinal));
    }

    [Fact]
    public void Cases_at_different_placements_are_ranked_apart()
    {
        var run = Run("same-core", ("tcp", 30), ("udp", 25));
        run = run with { Cases = [.. run.Cases, .. Run("none", ("tcp", 50), ("udp", 20)).Cases] };
        var sentences = RunDigest.Sentences(run);
        Assert.Contains(sentences, s => s.StartsWith("Placement same-core: Fastest of each family at 1 B (p50): sockets: udp 25.0 us.", StringComparison.Ordinal));
        Assert.Contains(sentences, s => s.StartsWith("Placement none: Fastest of each family at 1 B (p50): sockets: udp 20.0 us, tcp 50.0 us, closer than", StringComparison.Ordinal));
    }

    [Fact]
    public void A_run_without_wake_up_figures_ranks_as_it_always_did()
    {
        var run = Run("none", ("tcp", 30), ("udp", 25));
        run = run with { Environment = run.Environment with { WakeUp = null } };
        var sentences = RunDigest.Sentences(run);
        Assert.Equal("Fastest of each family at 1 B (p50): sockets: udp 25.0 us.", sentences[0]);
        Assert.Contains("Not measured", EnvironmentMarkdown.Render(run));
    }

    private static string Fastest(IReadOnlyList<string> sentences) =>
        Assert.Single(sentences, s => s.Contains("Fastest of each family", StringComparison.Ordinal)) + ";";
}
