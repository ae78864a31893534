using IpcBench.Kit.Files;

namespace IpcBench.Tests;

public class PrivateDirectoryTests
{
    [Fact]
    public void Creates_a_fresh_0700_directory_and_removes_it()
    {
        string parent = Directory.CreateTempSubdirectory("pd-").FullName;
        try
        {
            string path = PrivateDirectory.Resolve(Path.Combine(parent, "ipcbench-*", "s.sock"), out string? created);
            Assert.NotNull(created);
            Assert.Equal(Path.Combine(created, "s.sock"), path);
            Assert.StartsWith($"ipcbench-{Environment.ProcessId}-", Path.GetFileName(created));
            if (!OperatingSystem.IsWindows())
            {
                Assert.Equal(UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute, File.GetUnixFileMode(created));
            }
            PrivateDirectory.Remove(created);
            Assert.False(Directory.Exists(created));
        }
        finally
        {
            Directory.Delete(parent, recursive: true);
        }
    }

    [Fact]
    public void A_path_without_a_star_is_used_as_it_is()
    {
        Assert.Equal("/run/x/s.sock", PrivateDirectory.Resolve("/run/x/s.sock", out string? created));
        Assert.Null(created);
    }

    [Fact]
    public void Removes_the_directories_of_dead_servers_and_keeps_the_live_ones()
    {
        string parent = Directory.CreateTempSubdirectory("pd-").FullName;
        try
        {
            // above any pid_max, and 0700 as IpcBench makes its directories (a sweep removes nothing else)
            string dead = OperatingSystem.IsWindows() ? Directory.CreateDirectory(Path.Combine(parent, "ipcbench-999999999-0a1b2c3d")).FullName
                : Directory.CreateDirectory(Path.Combine(parent, "ipcbench-999999999-0a1b2c3d"), UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute).FullName;
            File.WriteAllText(Path.Combine(dead, "s.sock"), "");
            string live = Directory.CreateDirectory(Path.Combine(parent, $"ipcbench-{Environment.ProcessId}-0a1b2c3d")).FullName;
            string unrelated = Directory.CreateDirectory(Path.Combine(parent, "ipcbench-notes")).FullName;

            PrivateDirectory.Resolve(Path.Combine(parent, "ipcbench-*", "s.sock"), out string? created);

            Assert.False(Directory.Exists(dead));
            Assert.True(Directory.Exists(live));
            Assert.True(Directory.Exists(unrelated));
            PrivateDirectory.Remove(created);
        }
        finally
        {
            Directory.Delete(parent, recursive: true);
        }
    }
}
