using System.Diagnostics;
using IpcBench.Reporting.Collecting;

namespace IpcBench.Tests;

public class GitCommitTests
{
    /// <summary>
    /// A run names the commit its program was built from, stamped in at build time: benchmarks/ab.sh runs a build of
    /// another revision from this repository, whose HEAD those runs were labelled with before.
    /// </summary>
    [Fact]
    public void A_run_names_the_commit_its_program_was_built_from_wherever_it_runs()
    {
        string? stamped = GitCommit.Stamped();
        Assert.NotNull(stamped); // the tests are built in a work tree, which the SDK stamps
        Assert.Matches("^[0-9a-f]{40}$", stamped);
        Assert.Equal(stamped, GitCommit.Current());
        var git = Process.Start(new ProcessStartInfo("git", ["cat-file", "-t", stamped]) { RedirectStandardOutput = true, WorkingDirectory = AppContext.BaseDirectory })!;
        Assert.Equal("commit", git.StandardOutput.ReadToEnd().Trim()); // a commit of this repository
        git.WaitForExit();
    }
}
