using System.Diagnostics;
using IpcBench.Harness.Hosting;
using IpcBench.Kit.Files;
using IpcBench.Kit.Processes;

namespace IpcBench.Tests;

/// <summary>
/// A server removes what killed servers left beside its own private directory: only entries IpcBench can prove it made
/// (its exact name, its kind of file, this user's, no live pid), never a user's file that happens to match a pattern.
/// </summary>
public sealed class SweepTests : IDisposable
{
    // Above the largest pid_max Linux allows (4,194,304): no process holds them.
    private const int Dead = 4_999_999;

    private readonly string _parent = Directory.CreateTempSubdirectory("sweep-").FullName;

    public void Dispose() => Directory.Delete(_parent, recursive: true);

    [Fact]
    public void A_star_in_a_users_own_path_sweeps_none_of_its_neighbours()
    {
        if (!OperatingSystem.IsLinux())
        {
            Assert.Skip("file modes and owners are checked on Linux");
        }
        string thesis = MakeDirectory($"{Dead}-thesis");
        string sameShape = MakeDirectory($"{Dead}-0a1b2c3d"); // the shape of the name part IpcBench fills in, yet not its name

        string path = PrivateDirectory.Resolve(Path.Combine(_parent, "*", "s.sock"), out string? created);

        Assert.True(Directory.Exists(thesis), "a user's folder was swept");
        Assert.True(Directory.Exists(sameShape), "a folder not named ipcbench-* was swept");
        Assert.Equal(Path.Combine(created!, "s.sock"), path);
        PrivateDirectory.Remove(created);
    }

    [Fact]
    public void Only_a_dead_servers_directory_of_IpcBenchs_exact_name_kind_and_owner_is_swept()
    {
        if (!OperatingSystem.IsLinux())
        {
            Assert.Skip("file modes and owners are checked on Linux");
        }
        string stale = MakeDirectory($"ipcbench-{Dead}-0a1b2c3d");
        File.WriteAllText(Path.Combine(stale, "s.sock"), "");
        string notes = Path.Combine(_parent, $"ipcbench-{Dead}-notes.txt");
        File.WriteAllText(notes, "a user's notes");
        string longer = MakeDirectory($"ipcbench-{Dead}-0a1b2c3d-copy");
        string regularFile = Path.Combine(_parent, $"ipcbench-{Dead - 1}-0a1b2c3d");
        File.WriteAllText(regularFile, "");
        string open = MakeDirectory($"ipcbench-{Dead - 2}-0a1b2c3d", UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute
            | UnixFileMode.GroupRead | UnixFileMode.GroupExecute | UnixFileMode.OtherRead | UnixFileMode.OtherExecute); // 0755: not as IpcBench makes one
        string target = MakeDirectory("elsewhere");
        File.WriteAllText(Path.Combine(target, "keep"), "");
        string link = Path.Combine(_parent, $"ipcbench-{Dead - 3}-0a1b2c3d");
        File.CreateSymbolicLink(link, target);

        PrivateDirectory.Resolve(Path.Combine(_parent, "ipcbench-*", "s.sock"), out string? created);

        Assert.False(Directory.Exists(stale), "the dead server's directory is still there");
        Assert.True(File.Exists(notes), "a file merely starting like a server's name was removed");
        Assert.True(Directory.Exists(longer), "a directory with more after the random part was removed");
        Assert.True(File.Exists(regularFile), "a regular file of a server directory's name was removed");
        Assert.True(Directory.Exists(open), "a directory open to others, which IpcBench never makes, was removed");
        Assert.True(File.Exists(Path.Combine(target, "keep")), "the sweep went through a link");
        Assert.True(File.GetAttributes(link).HasFlag(FileAttributes.ReparsePoint), "the link was removed");
        PrivateDirectory.Remove(created);
    }

    [Fact]
    public void Another_users_directory_of_a_servers_name_is_not_swept()
    {
        if (!OperatingSystem.IsLinux() || !Environment.IsPrivilegedProcess)
        {
            Assert.Skip("giving a directory to another user needs root on Linux");
        }
        string theirs = MakeDirectory($"ipcbench-{Dead}-0a1b2c3d");
        Chown(theirs, "nobody");

        PrivateDirectory.Resolve(Path.Combine(_parent, "ipcbench-*", "s.sock"), out string? created);

        Assert.True(Directory.Exists(theirs), "another user's directory was swept");
        PrivateDirectory.Remove(created);
    }

    /// <summary>
    /// A server in a container is pid 1 in a pid namespace of its own and shares the host's /tmp: by its pids every host
    /// process is gone, so it must sweep nothing, and name its own files by the pid its starter knows it by, so that they
    /// go when it is killed.
    /// </summary>
    [Fact]
    public async Task A_server_in_a_container_sweeps_no_live_servers_files_and_its_own_go_when_it_is_killed()
    {
        if (Isolation.Container.Refuses(IpcBench.Transports.TransportRegistry.Get("uds")) is { } why)
        {
            Assert.Skip($"uds cannot run in a container here ({why}); IsolationTests check the refusal");
        }
        using var bare = CliProcess.Start("serve", "--transport", "uds");
        string? ready = await bare.Process.StandardOutput.ReadLineAsync(TestContext.Current.CancellationToken).AsTask().WaitAsync(TimeSpan.FromSeconds(30), TestContext.Current.CancellationToken);
        Assert.StartsWith("READY uds://", ready);
        string bareDirectory = Path.GetDirectoryName(PathAddress.ToPath(new Uri(ready!["READY ".Length..])))!;

        using var cli = CliProcess.Start("ping", "--transport", "uds", "--isolation", "container", "--count", "100000000",
            "--timeout", "1s", "--no-results");
        var ping = cli.Process;
        _ = ping.StandardOutput.ReadToEndAsync(TestContext.Current.CancellationToken);
        var stderr = ping.StandardError.ReadToEndAsync(TestContext.Current.CancellationToken);
        int? started = null;
        string[] directories = [];
        var deadline = DateTime.UtcNow.AddSeconds(30);
        while (directories.Length == 0 && DateTime.UtcNow < deadline && !ping.HasExited)
        {
            await Task.Delay(200, TestContext.Current.CancellationToken);
            started ??= ProcessTree.Children(ping.Id).Cast<int?>().FirstOrDefault(pid => ProcFs.CommandLine(pid ?? 0).StartsWith("unshare", StringComparison.Ordinal));
            directories = started is null ? [] : Directory.GetDirectories(Path.GetTempPath(), $"ipcbench-{started}-*");
        }
        Assert.True(directories.Length == 1, $"no private directory named after the pid the container's server was started as ({started})");
        Assert.True(Directory.Exists(bareDirectory), $"the container's server swept the live bare server's {bareDirectory}");

        // Frozen once it listens and requests flow: frozen before its READY, it would meet ping's 30 s start timeout instead.
        var listening = DateTime.UtcNow.AddSeconds(30);
        while (!File.Exists(Path.Combine(directories[0], "s.sock")) && DateTime.UtcNow < listening)
        {
            await Task.Delay(100, TestContext.Current.CancellationToken);
        }
        await Task.Delay(2000, TestContext.Current.CancellationToken);
        int server = ProcessTree.Descendants(started!.Value).Single(pid => ProcFs.CommandLine(pid).Contains(" serve ", StringComparison.Ordinal));
        using (var stop = Process.Start("kill", ["-STOP", $"{server}"])!)
        {
            await stop.WaitForExitAsync(TestContext.Current.CancellationToken).WaitAsync(TimeSpan.FromSeconds(10), TestContext.Current.CancellationToken);
        }
        await ping.WaitForExitAsync(TestContext.Current.CancellationToken).WaitAsync(TimeSpan.FromSeconds(60), TestContext.Current.CancellationToken);

        Assert.Equal(1, ping.ExitCode);
        Assert.Contains("no reply", await stderr);
        Assert.False(Directory.Exists(directories[0]), $"the killed container server's {directories[0]} is still there");
        Assert.True(Directory.Exists(bareDirectory), $"the bare server's {bareDirectory} went with the container's");
    }

    /// <summary>A directory of mode <paramref name="mode"/> (0700 by default, as IpcBench makes its own); modes are Unix's.</summary>
    private string MakeDirectory(string name, UnixFileMode mode = UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute) =>
        OperatingSystem.IsWindows() ? throw new PlatformNotSupportedException("file modes")
            : Directory.CreateDirectory(Path.Combine(_parent, name), mode).FullName;

    private static void Chown(string path, string user)
    {
        using var chown = Process.Start("chown", [user, path])!;
        chown.WaitForExit(10_000);
        Assert.Equal(0, chown.ExitCode);
    }
}
