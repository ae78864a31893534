using System.Diagnostics;
using IpcBench.Kit.Processes;

namespace IpcBench.Tests;

/// <summary>
/// BoundedChild runs a command to its end or its bound: what it wrote comes back whole, and a child past its bound or
/// cancelled is gone, with what it started and the private directory an IpcBench process leaves, before the call returns.
/// </summary>
public class BoundedChildTests
{
    [Fact]
    public async Task Returns_the_exit_code_and_all_the_child_wrote_having_handed_it_a_line()
    {
        Assert.SkipUnless(OperatingSystem.IsLinux(), "the children are sh scripts");
        var info = new ProcessStartInfo("sh", ["-c", "read line; echo \"got $line\"; echo first >&2; echo why >&2; exit 3"]);

        var ended = await BoundedChild.RunAsync(info, "sh", TimeSpan.FromSeconds(30), TestContext.Current.CancellationToken, input: "hello");

        Assert.Equal(3, ended.ExitCode);
        Assert.Equal("got hello\n", ended.Stdout);
        Assert.Equal("why", ended.LastError);
    }

    [Fact]
    public async Task A_child_past_its_bound_is_killed_with_what_it_started_and_its_private_directory()
    {
        Assert.SkipUnless(OperatingSystem.IsLinux(), "the children are sh scripts");
        string marker = $"300{Random.Shared.Next(100_000, 999_999)}";
        string tmp = Path.GetTempPath();
        // A private directory named as an IpcBench server names its own (its pid, 8 hex digits), then a grandchild.
        var info = new ProcessStartInfo("sh", ["-c", $"mkdir -m 700 {tmp}ipcbench-$$-0badf00d && sleep {marker} & wait"]);
        var run = BoundedChild.RunAsync(info, "the sleeper", TimeSpan.FromSeconds(5), TestContext.Current.CancellationToken);
        try
        {
            await Until(() => Sleeping(marker) && Directory.GetDirectories(tmp, "ipcbench-*-0badf00d").Length > 0, TimeSpan.FromSeconds(4.5));
            string[] made = Directory.GetDirectories(tmp, "ipcbench-*-0badf00d");
            Assert.Single(made);
            Assert.True(Sleeping(marker), "the grandchild did not start");

            var e = await Assert.ThrowsAsync<TimeoutException>(() => run);

            Assert.Equal("the sleeper did not finish within 5 s", e.Message);
            await Until(() => !Sleeping(marker), TimeSpan.FromSeconds(5)); // SIGKILL lands on the grandchild as the call returns
            Assert.False(Sleeping(marker), "the grandchild is still running");
            Assert.False(Directory.Exists(made[0]), $"{made[0]} is left behind");
        }
        finally
        {
            await run.ContinueWith(_ => { }, TaskScheduler.Default); // on a failed check too: nothing outlives the test
        }
    }

    [Fact]
    public async Task A_cancelled_child_is_killed_and_the_cancellation_is_what_the_caller_sees()
    {
        Assert.SkipUnless(OperatingSystem.IsLinux(), "the children are sh scripts");
        string marker = $"301{Random.Shared.Next(100_000, 999_999)}";
        using var cancel = CancellationTokenSource.CreateLinkedTokenSource(TestContext.Current.CancellationToken);
        var run = BoundedChild.RunAsync(new ProcessStartInfo("sleep", [marker]), "sleep", TimeSpan.FromMinutes(5), cancel.Token);
        try
        {
            await Until(() => Sleeping(marker), TimeSpan.FromSeconds(10));
            Assert.True(Sleeping(marker), "the child did not start");

            cancel.Cancel();

            await Assert.ThrowsAnyAsync<OperationCanceledException>(() => run);
            Assert.False(Sleeping(marker), "the child is still running");
        }
        finally
        {
            cancel.Cancel();
            await run.ContinueWith(_ => { }, TaskScheduler.Default);
        }
    }

    /// <summary>Whether a <c>sleep MARKER</c> runs (not a shell whose script names it; a zombie has no command line).</summary>
    private static bool Sleeping(string marker) => ProcFs.CommandLines().Any(c => c.StartsWith("sleep ", StringComparison.Ordinal) && c.Contains(marker));

    private static async Task Until(Func<bool> condition, TimeSpan bound)
    {
        var deadline = DateTime.UtcNow + bound;
        while (!condition() && DateTime.UtcNow < deadline)
        {
            await Task.Delay(20, TestContext.Current.CancellationToken);
        }
    }
}
