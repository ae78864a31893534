using System.Diagnostics;
using IpcBench.Kit.Processes;

namespace IpcBench.Tests;

/// <summary>ProcessTree.Kill takes a process's children and grandchildren with it, SIGKILL alone, however they were started.</summary>
public class ProcessTreeTests
{
    [Fact]
    public async Task Kill_takes_the_children_and_grandchildren_with_the_process()
    {
        Assert.SkipUnless(OperatingSystem.IsLinux(), "ProcessTree walks /proc on Linux only; elsewhere it is the runtime's own tree kill");
        using var shell = Process.Start(new ProcessStartInfo("sh", ["-c", "sh -c 'sleep 300 & wait' & sleep 300 & wait"]))!;
        try
        {
            var tree = new List<int>();
            var deadline = DateTime.UtcNow.AddSeconds(10);
            while (tree.Count < 3 && DateTime.UtcNow < deadline) // the inner shell, its sleep and the outer sleep
            {
                await Task.Delay(50, TestContext.Current.CancellationToken);
                tree = [.. ProcessTree.Descendants(shell.Id)];
            }
            Assert.Equal(3, tree.Count);

            ProcessTree.Kill(shell);

            Assert.True(shell.WaitForExit(5000), "the process itself is still running");
            deadline = DateTime.UtcNow.AddSeconds(5);
            while (tree.Any(IsRunning) && DateTime.UtcNow < deadline)
            {
                await Task.Delay(50, TestContext.Current.CancellationToken);
            }
            Assert.DoesNotContain(tree, IsRunning);
        }
        finally
        {
            if (!shell.HasExited)
            {
                shell.Kill(); // the sleeps end on their own
            }
        }
    }

    /// <summary>Alive and not a zombie waiting for a parent that does not reap (a container's init may not).</summary>
    private static bool IsRunning(int pid)
    {
        try
        {
            string stat = File.ReadAllText($"/proc/{pid}/stat");
            return stat[stat.LastIndexOf(')')..].Split(' ')[1] != "Z";
        }
        catch (IOException)
        {
            return false;
        }
    }
}
