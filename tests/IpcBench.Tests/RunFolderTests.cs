using IpcBench.Reporting;
using IpcBench.Reporting.Collecting;
using IpcBench.Reporting.Writers;

namespace IpcBench.Tests;

/// <summary>A run folder is either complete or says it is not: a run stopped half-way is never read as a whole one.</summary>
public class RunFolderTests : IDisposable
{
    private readonly string _root = Directory.CreateTempSubdirectory("ipcbench-test-runs-").FullName;

    [Fact]
    public void A_folder_is_marked_incomplete_until_its_results_and_reports_are_written()
    {
        string folder = RunFolder.Create(_root, "20261122-005250-bench");
        Assert.True(RunFolder.IsIncomplete(folder));
        ResultsFile.Write(folder, RunFixtures.Bench()); // a run killed after results.json, before its reports
        var e = Assert.Throws<ResultsFormatException>(() => ResultsFile.Read(folder));
        Assert.Contains("is incomplete", e.Message);
        Assert.Throws<ResultsFormatException>(() => ResultsFile.Read(Path.Combine(folder, ResultsFile.FileName)));

        ReportWriter.WriteAll(folder, RunFixtures.Bench());

        Assert.False(RunFolder.IsIncomplete(folder));
        Assert.Equal(RunFixtures.Bench().Cases.Count, ResultsFile.Read(folder).Cases.Count);
        Assert.Empty(Directory.GetFiles(folder, "*.partial"));
    }

    [Fact]
    public void A_second_run_in_the_same_second_gets_a_folder_of_its_own()
    {
        string first = RunFolder.Create(_root, "20261122-005250-ping");
        string second = RunFolder.Create(_root, "20261122-005250-ping");
        Assert.Equal(first + "-2", second);
    }

    [Fact]
    public void Runs_started_together_in_the_same_second_each_get_a_folder_of_their_own()
    {
        var folders = new System.Collections.Concurrent.ConcurrentBag<string>();
        Parallel.For(0, 16, new ParallelOptions { MaxDegreeOfParallelism = 8 }, _ => folders.Add(RunFolder.Create(_root, "20261122-005250-ping")));
        Assert.Equal(16, folders.Distinct().Count());
        Assert.Equal(16, Directory.GetDirectories(_root).Length); // and no folder it made them under is left
        Assert.All(folders, f => Assert.True(RunFolder.IsIncomplete(f)));
    }

    [Fact]
    public void A_run_that_ran_nothing_leaves_no_folder()
    {
        string folder = RunFolder.Create(_root, "20261122-005250-bench");
        RunFolder.DiscardEmpty(folder);
        Assert.False(Directory.Exists(folder));
    }

    [Fact]
    public void A_folder_that_cannot_be_made_is_named_before_a_run()
    {
        Assert.Null(RunFolder.Unwritable(Path.Combine(_root, "new", "deeper")));
        Assert.Empty(Directory.EnumerateFileSystemEntries(_root)); // neither the probe nor the folders made for it are left
        Assert.Contains("/dev/null/x", RunFolder.Unwritable("/dev/null/x"));
    }

    /// <summary>A run whose results fill the disk fails in one line and leaves no folder behind, whole or not.</summary>
    [Fact]
    public async Task A_disk_that_fills_up_while_a_run_is_written_costs_the_run_folder_and_nothing_else()
    {
        Assert.SkipUnless(OperatingSystem.IsLinux() && Environment.IsPrivilegedProcess, "mounts a 64 KB tmpfs as the results folder: needs Linux and root");
        string disk = Path.Combine(_root, "small-disk");
        Directory.CreateDirectory(disk);
        await RunAsync("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", disk);
        try
        {
            File.WriteAllBytes(Path.Combine(disk, "fill"), new byte[56 * 1024]); // room for the folder, not for its results
            var (exit, stdout, stderr) = await CliTests.RunWithAsync(new Dictionary<string, string> { ["IPCBENCH_RESULTS"] = disk },
                "ping", "--transport", "tcp", "--count", "500");

            Assert.Equal(1, exit);
            Assert.Contains("latency us", stdout); // the figures were printed before the folder was written
            string line = Assert.Single(stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries));
            Assert.Matches("full|No space left", line);
            Assert.Equal(["fill"], Directory.GetFileSystemEntries(disk).Select(Path.GetFileName));
        }
        finally
        {
            await RunAsync("umount", disk);
        }
    }

    private static async Task RunAsync(string program, params string[] args)
    {
        var info = new System.Diagnostics.ProcessStartInfo(program) { RedirectStandardError = true };
        args.ToList().ForEach(info.ArgumentList.Add);
        using var process = System.Diagnostics.Process.Start(info)!;
        string stderr = await process.StandardError.ReadToEndAsync();
        await process.WaitForExitAsync(new CancellationTokenSource(TimeSpan.FromSeconds(30)).Token);
        Assert.True(process.ExitCode == 0, $"{program}: {stderr}");
    }

    public void Dispose() => Directory.Delete(_root, recursive: true);
}
