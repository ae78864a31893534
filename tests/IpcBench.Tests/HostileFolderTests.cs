using System.Diagnostics;
using IpcBench.Reporting;

namespace IpcBench.Tests;

/// <summary>
/// A run folder from elsewhere is hostile: <c>report</c> writes no file through a link planted at a report's name, and
/// <c>report</c>, <c>compare</c> and <c>merge</c> refuse a results.json that is a link, a FIFO, a device or oversized, in one
/// line and within seconds, never a hang or an exhausted memory.
/// </summary>
public sealed class HostileFolderTests : IDisposable
{
    private readonly string _dir = Directory.CreateTempSubdirectory("ipcbench-hostile-").FullName;

    public void Dispose() => Directory.Delete(_dir, recursive: true);

    [Fact]
    public async Task Report_replaces_a_link_at_each_reports_name_and_writes_nothing_through_it()
    {
        string folder = RunFixtures.Save(_dir, RunFixtures.Bench());
        string victims = Directory.CreateDirectory(Path.Combine(_dir, "victims")).FullName;
        string[] names = ["env.md", "summary.md", "summary.csv", "report.html", "latency-by-size.svg", "percentiles.svg"];
        foreach (string name in names)
        {
            string victim = Path.Combine(victims, name);
            File.WriteAllText(victim, "a user's own file");
            File.Delete(Path.Combine(folder, name));
            File.CreateSymbolicLink(Path.Combine(folder, name), victim);
        }

        var (exit, _, stderr) = await CliTests.RunWithAsync(null, "report", folder);

        Assert.True(exit == 0, stderr);
        foreach (string name in names)
        {
            Assert.Equal("a user's own file", File.ReadAllText(Path.Combine(victims, name)));
            var written = new FileInfo(Path.Combine(folder, name));
            Assert.Null(written.LinkTarget);
            Assert.True(written.Length > 0, $"{name} was not written");
        }
        Assert.Empty(Directory.GetFiles(folder, "*.partial"));
    }

    public static TheoryData<string, string> HostileResults => new()
    {
        { "report", "fifo" }, { "compare", "fifo" }, { "merge", "fifo" },
        { "report", "link to /dev/zero" }, { "compare", "link to /dev/zero" }, { "merge", "link to /dev/zero" },
        { "report", "device" }, { "compare", "device" }, { "merge", "device" },
        { "report", "oversized" }, { "compare", "oversized" }, { "merge", "oversized" },
        { "report", "link to a good file" },
    };

    [Theory]
    [MemberData(nameof(HostileResults))]
    public async Task A_results_file_that_is_not_a_bounded_regular_file_is_refused_in_one_line(string verb, string kind)
    {
        Assert.SkipUnless(OperatingSystem.IsLinux(), "FIFOs and device nodes are made with Linux's mkfifo and mknod");
        Assert.SkipWhen(kind == "device" && !Environment.IsPrivilegedProcess, "making a device node needs root");
        string good = RunFixtures.Save(_dir, RunFixtures.Bench());
        string bad = Directory.CreateDirectory(Path.Combine(_dir, "bad")).FullName;
        string results = Path.Combine(bad, ResultsFile.FileName);
        string expected = Plant(results, kind, Path.Combine(good, ResultsFile.FileName));
        string[] args = verb switch
        {
            "report" => ["report", bad],
            "compare" => ["compare", good, bad],
            _ => ["merge", good, bad, "--into", Path.Combine(_dir, "merged")],
        };

        var watch = Stopwatch.StartNew();
        var (exit, _, stderr) = await CliTests.RunWithAsync(null, args);

        Assert.True(exit == 2, $"exit {exit}: {stderr}");
        Assert.Single(stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.Contains(expected, stderr);
        Assert.True(watch.Elapsed < TimeSpan.FromSeconds(30), $"took {watch.Elapsed}");
        Assert.False(Directory.Exists(Path.Combine(_dir, "merged")), "merge wrote a folder");
    }

    [Theory]
    [InlineData("=HYPERLINK(\"http://169.254.1.1/\")", "\"'=HYPERLINK(\"\"http://169.254.1.1/\"\")\"")]
    [InlineData("+1+cmd", "'+1+cmd")]
    [InlineData("-2+3", "'-2+3")]
    [InlineData("@SUM(A1)", "'@SUM(A1)")]
    [InlineData("20261122-000000-bench", "20261122-000000-bench")]
    public void Summary_csv_gives_a_spreadsheet_no_formula_to_run(string id, string field)
    {
        string csv = Reporting.Writers.SummaryCsv.Render(RunFixtures.Bench() with { Id = id });
        Assert.StartsWith(field + ",", csv.Split('\n')[1]);
    }

    /// <summary>Makes <paramref name="path"/> the hostile <paramref name="kind"/>; returns what the refusal must say.</summary>
    private static string Plant(string path, string kind, string goodFile)
    {
        switch (kind)
        {
            case "fifo":
                Run("mkfifo", path);
                return "is a named pipe (FIFO), not a regular file";
            case "link to /dev/zero":
                File.CreateSymbolicLink(path, "/dev/zero");
                return "is a symbolic link, not a regular file";
            case "link to a good file": // a link is refused wherever it points: the folder's own file is what is read
                File.CreateSymbolicLink(path, goodFile);
                return "is a symbolic link, not a regular file";
            case "device":
                Run("mknod", path, "c", "1", "5"); // /dev/zero's numbers
                return "is a character device, not a regular file";
            default:
                using (var file = new FileStream(path, FileMode.CreateNew))
                {
                    file.SetLength(ResultsFile.MaxFileBytes + 1L); // sparse: no disk, and it must not be read whole
                }
                return "is larger than 64 MiB";
        }
    }

    private static void Run(string program, params string[] args)
    {
        using var process = Process.Start(program, args)!;
        Assert.True(process.WaitForExit(10_000), $"{program} did not finish");
        Assert.Equal(0, process.ExitCode);
    }
}
