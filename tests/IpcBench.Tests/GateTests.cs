using System.Text.Json;
using IpcBench.Harness.Hosting;
using IpcBench.Reporting.History;

namespace IpcBench.Tests;

/// <summary>
/// <c>ipcbench gate</c>, the A/B gate over two builds (benchmarks/ab.sh builds them), here one build against itself: a
/// slowdown injected into B is called slower from the launches, the rounds kept as compare and history read them; a
/// failed ping is an error (exit 2), not a verdict; a --keep folder that holds something is refused and left as it was.
/// </summary>
public sealed class GateTests : IDisposable
{
    private readonly string _dir = Directory.CreateTempSubdirectory("ipcbench-gate-").FullName;

    public void Dispose() => Directory.Delete(_dir, recursive: true);

    /// <summary>The folder of the ipcbench these tests run: both sides of the gate.</summary>
    private static string Build => Path.GetDirectoryName(ServerCommand.Resolve().ExecutablePath)!;

    private static Task<(int Exit, string Stdout, string Stderr)> GateAsync(params string[] args) =>
        CliTests.RunWithAsync(null, ["gate", "--base", Build, "--head", Build, .. args]);

    [Fact]
    public async Task A_slowdown_injected_into_B_is_called_slower_on_the_launches_and_the_rounds_are_kept()
    {
        string keep = Path.Combine(_dir, "kept");

        // Up to 12 rounds: beside the conformance suite (CI runs the two test projects at once) a launch of A once measured
        // 2.6 times its p50 in two of 4 rounds, and 4 could not tell; the gate adds rounds until it can.
        var (exit, stdout, stderr) = await GateAsync("--transports", "tcp,udp", "--sizes", "100KB", "--rounds", "4", "--max-rounds", "12",
            "--count", "300", "--inject-slowdown", "100%", "--keep", keep);

        Assert.True(exit == 1, $"exit {exit}: {stderr}\n{stdout}");
        Assert.Contains("== not gated: udp at 100KB: ", stdout); // over a datagram's 64 KB: the base refuses it, the gate goes on
        Assert.Contains("round 4 tcp 100KB B: B p50", stdout); // even rounds run B first
        Assert.Contains("a case is slower", stdout);
        using var verdicts = JsonDocument.Parse(File.ReadAllText(Path.Combine(keep, GateVerdicts.FileName)));
        var only = Assert.Single(verdicts.RootElement.GetProperty("cases").EnumerateArray());
        Assert.Equal("slower", only.GetProperty("verdict").GetString());
        int launches = only.GetProperty("current_launches").GetInt32();
        Assert.InRange(launches, 4, 12);
        foreach (string side in new[] { "A", "B" })
        {
            Assert.Equal(launches, Directory.GetFiles(Path.Combine(keep, side), "results.json", SearchOption.AllDirectories).Length);
            Assert.True(File.Exists(Path.Combine(keep, side, "tcp-100KB-round1", "stderr.txt")));
        }
        Assert.True(File.Exists(Path.Combine(keep, KeptGate.CompareFile)));
    }

    [Fact]
    public async Task A_ping_that_fails_is_an_error_in_one_line_not_a_verdict()
    {
        Assert.SkipWhen(OperatingSystem.IsWindows(), "the broken build is a shell script");
        string broken = Directory.CreateDirectory(Path.Combine(_dir, "broken")).FullName; // a "build" whose ping fails
        File.WriteAllText(Path.Combine(broken, "ipcbench"), "#!/bin/sh\necho 'ipcbench ping: error: the server is gone' >&2\nexit 1\n");
        if (!OperatingSystem.IsWindows())
        {
            File.SetUnixFileMode(Path.Combine(broken, "ipcbench"), UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute);
        }

        var (exit, stdout, stderr) = await CliTests.RunWithAsync(null, "gate", "--base", broken, "--head", Build, "--rounds", "1");

        Assert.Equal(2, exit);
        Assert.Equal("ipcbench gate: A's ping of tcp at 1 failed (round 1, exit 1): ipcbench ping: error: the server is gone", stderr.Trim());
        Assert.Single(stderr.Trim().Split('\n'));
        Assert.DoesNotContain("slower", stdout);
    }

    [Fact]
    public async Task A_keep_folder_that_holds_something_is_refused_and_left_as_it_was()
    {
        string keep = Directory.CreateDirectory(Path.Combine(_dir, "kept", "A")).Parent!.FullName;
        File.WriteAllText(Path.Combine(keep, "A", "mine"), "a user's file");

        var (exit, _, stderr) = await GateAsync("--keep", keep);

        Assert.Equal(2, exit);
        Assert.Contains("--keep", stderr);
        Assert.Equal("a user's file", File.ReadAllText(Path.Combine(keep, "A", "mine")));
    }
}
