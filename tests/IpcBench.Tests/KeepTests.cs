using IpcBench.Reporting;
using IpcBench.Reporting.History;

namespace IpcBench.Tests;

/// <summary>
/// <c>ipcbench keep GATE --into DIR</c>: what the workflow's history branch keeps of a gate. Each round's figures whole
/// and its per-request samples gone, the verdicts and compare.md kept, logs left out; a damaged gate, a link in it or
/// a DIR that holds something writes nothing. What it keeps reads back in <c>ipcbench history</c> as the gate did.
/// </summary>
public sealed class KeepTests : IDisposable
{
    private static readonly DateTimeOffset At = new(2026, 11, 20, 6, 0, 0, TimeSpan.Zero);

    private readonly string _dir = Directory.CreateTempSubdirectory("ipcbench-keep-").FullName;

    public void Dispose() => Directory.Delete(_dir, recursive: true);

    private string Gate() => GateFixtures.Keep(Path.Combine(_dir, "gate"), new string('a', 40), new string('b', 40), At, 20, 26);

    [Fact]
    public async Task Keeps_each_rounds_figures_without_its_samples_and_the_verdicts_and_leaves_the_logs()
    {
        string gate = Gate(), into = Path.Combine(_dir, "kept");
        File.WriteAllText(Path.Combine(gate, KeptGate.CompareFile), "| compare's table |\n");
        File.WriteAllText(Path.Combine(gate, "B", "tcp-1-round1", "stderr.txt"), "a round's log\n"); // as ab.sh keeps a round's log

        var (exit, stdout, stderr) = await CliTests.RunWithAsync(null, "keep", gate, "--into", into);

        Assert.True(exit == 0, stderr);
        Assert.Equal(into, stdout.Trim());
        var kept = Directory.EnumerateFiles(into, "*", SearchOption.AllDirectories).Select(f => Path.GetRelativePath(into, f)).Order().ToList();
        Assert.Equal(14, kept.Count); // six rounds a side, verdicts.json, compare.md
        Assert.DoesNotContain(kept, f => f.EndsWith("stderr.txt", StringComparison.Ordinal));
        Assert.Equal(File.ReadAllText(Path.Combine(gate, KeptGate.CompareFile)), File.ReadAllText(Path.Combine(into, KeptGate.CompareFile)));
        Assert.Equal(File.ReadAllText(Path.Combine(gate, GateVerdicts.FileName)), File.ReadAllText(Path.Combine(into, GateVerdicts.FileName)));
        foreach (string results in kept.Where(f => Path.GetFileName(f) == ResultsFile.FileName))
        {
            var original = ResultsFile.Read(Path.Combine(gate, results));
            var stripped = ResultsFile.Read(Path.Combine(into, results));
            Assert.NotEmpty(original.Cases.Single().SamplesUs);
            Assert.Empty(stripped.Cases.Single().SamplesUs);
            Assert.Equal(ResultsFile.Serialize(original with { Cases = [original.Cases.Single() with { SamplesUs = [] }] }), ResultsFile.Serialize(stripped));
            Assert.True(new FileInfo(Path.Combine(into, results)).Length < new FileInfo(Path.Combine(gate, results)).Length);
        }

        // The history reads what was kept as it reads the gate: the same medians, intervals and verdict.
        var fromGate = RunHistory.Read([gate]).Series.Single().Points.Single();
        var fromKept = RunHistory.Read([into]).Series.Single().Points.Single();
        Assert.Equal(fromGate, fromKept);
        Assert.True(fromKept.Verdict!.Slower);
    }

    public static TheoryData<string, string> Damages => new()
    {
        { "results", "B/tcp-1-round3/20261120-060100-ping-3/results.json" },
        { "verdicts", GateVerdicts.FileName },
        { "link", "A/tcp-1-round2/20261120-060000-ping-2/results.json" },
        { "no verdicts", GateVerdicts.FileName },
    };

    [Theory]
    [MemberData(nameof(Damages))]
    public async Task A_damaged_gate_is_one_line_that_names_the_file_and_writes_nothing(string damage, string file)
    {
        string gate = Gate(), into = Path.Combine(_dir, "kept"), path = Path.Combine(gate, file);
        switch (damage)
        {
            case "link":
                File.Move(path, Path.Combine(_dir, "elsewhere.json"));
                File.CreateSymbolicLink(path, Path.Combine(_dir, "elsewhere.json"));
                break;
            case "no verdicts":
                File.Delete(path);
                break;
            default:
                File.WriteAllText(path, "{\"cases\": [1, 2");
                break;
        }

        var (exit, stdout, stderr) = await CliTests.RunWithAsync(null, "keep", gate, "--into", into);

        Assert.Equal(2, exit);
        Assert.Empty(stdout);
        string line = Assert.Single(stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.StartsWith("ipcbench keep: error: ", line, StringComparison.Ordinal);
        Assert.Contains(damage == "no verdicts" ? gate : damage == "link" ? path : Path.Combine(gate, file), line, StringComparison.Ordinal);
        Assert.False(Directory.Exists(into));
    }

    [Fact]
    public async Task A_folder_that_holds_something_is_refused_and_left_as_it_was()
    {
        string gate = Gate(), into = Path.Combine(_dir, "kept"), mine = Path.Combine(into, "mine.txt");
        Directory.CreateDirectory(into);
        File.WriteAllText(mine, "mine");

        var (exit, _, stderr) = await CliTests.RunWithAsync(null, "keep", gate, "--into", into);

        Assert.Equal(2, exit);
        Assert.Contains($"{into} is not empty", stderr, StringComparison.Ordinal);
        Assert.Equal(["mine.txt"], Directory.EnumerateFileSystemEntries(into).Select(Path.GetFileName));
        Assert.Equal("mine", File.ReadAllText(mine));
    }
}
