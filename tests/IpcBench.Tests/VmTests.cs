using System.Diagnostics;
using IpcBench.Cli.Guest;

namespace IpcBench.Tests;

/// <summary>
/// <c>ipcbench vm</c>, docker/vm.sh's guest (docker/ci.sh boots it for real, under TCG here): which transports' servers
/// the guest runs, which kernel it boots, and what it refuses before it touches anything.
/// </summary>
public sealed class VmTests : IDisposable
{
    private readonly string _dir = Directory.CreateTempSubdirectory("ipcbench-vm-").FullName;

    public void Dispose() => Directory.Delete(_dir, recursive: true);

    [Fact]
    public void The_guest_runs_the_servers_that_cross_a_network_each_on_a_port_of_its_own()
    {
        var told = new List<string>();

        var servers = VmRun.Servers(["tcp", "uds", "nats", "udp", "mmf"], told.Add);

        Assert.Equal([("tcp", 5000), ("udp", 5001)], servers);
        Assert.Equal(["uds: not supported in the guest: it does not cross a network (it meets its client on: socket-file)",
            "nats: not supported in the guest: it needs a broker",
            "mmf: not supported in the guest: it does not cross a network (it meets its client on: shared-memory)"], told);
        Assert.Throws<Cli.UnsupportedException>(() => VmRun.Servers(["uds"], _ => { }));
    }

    [Fact]
    public void The_newest_kernel_is_the_newest_by_its_numbers_not_its_letters()
    {
        string[] versions = ["6.1.0-9-amd64", "6.1.0-56-amd64", "5.10.0-30-amd64"];

        Assert.Equal("6.1.0-56-amd64", versions.OrderByDescending(GuestImage.VersionKey, StringComparer.Ordinal).First());
    }

    [Fact]
    public async Task The_sweep_removes_the_half_built_entries_of_a_gone_vm_sh_and_nothing_else()
    {
        Assert.SkipWhen(OperatingSystem.IsWindows(), "the guest is Linux's");
        string cache = Directory.CreateDirectory(Path.Combine(_dir, "cache")).FullName, elsewhere = Directory.CreateDirectory(Path.Combine(_dir, "elsewhere")).FullName;
        using var running = Process.Start("bash", ["-c", "exec -a docker/vm.sh sleep 60"])!;
        int gone = await GonePidAsync(), goneToo = await GonePidAsync();
        foreach (string name in new[] { $".building-{running.Id}", $".app-{running.Id}", $".building-{Environment.ProcessId}x", "guest-0123abcd", "app" })
        {
            Directory.CreateDirectory(Path.Combine(cache, name));
        }
        Directory.CreateDirectory(Path.Combine(cache, $".building-{gone}", "root"));
        Directory.CreateDirectory(Path.Combine(cache, $".app-{Environment.ProcessId}")); // a pid that runs something else now
        File.WriteAllText(Path.Combine(elsewhere, "mine"), "");
        Directory.CreateSymbolicLink(Path.Combine(cache, $".building-{goneToo}"), elsewhere);
        try
        {
            await WaitForAsync(() => Kit.Processes.ProcessLiveness.Runs(running.Id, "vm.sh")); // once bash has exec'd

            await GuestMachine.SweepGoneAsync(cache, TestContext.Current.CancellationToken);

            string[] kept = [$".app-{running.Id}", $".building-{running.Id}", $".building-{Environment.ProcessId}x", $".building-{goneToo}", "app", "guest-0123abcd"];
            Assert.Equal(kept.Order(StringComparer.Ordinal), Directory.EnumerateFileSystemEntries(cache).Select(Path.GetFileName).Order(StringComparer.Ordinal));
            Assert.True(File.Exists(Path.Combine(elsewhere, "mine"))); // a link is left, and what it points at
        }
        finally
        {
            running.Kill();
        }
    }

    private static async Task WaitForAsync(Func<bool> condition)
    {
        for (int i = 0; i < 100 && !condition(); i++)
        {
            await Task.Delay(50, TestContext.Current.CancellationToken);
        }
        Assert.True(condition());
    }

    /// <summary>The pid of a process that has ended (not reused this soon).</summary>
    private static async Task<int> GonePidAsync()
    {
        using var ended = Process.Start("true")!;
        await ended.WaitForExitAsync(TestContext.Current.CancellationToken);
        return ended.Id;
    }

    [Fact]
    public async Task A_build_that_is_not_self_contained_is_refused_before_anything_is_made()
    {
        Assert.SkipWhen(OperatingSystem.IsWindows(), "the guest is Linux's");
        string cache = Path.Combine(_dir, "cache");

        var (exit, stdout, stderr) = await CliTests.RunWithAsync(null, "vm", "--owner", "1", "--state", _dir, "--cache", cache, "tcp");

        Assert.True(exit == 2, $"exit {exit}: {stderr}");
        Assert.Contains("is not a self-contained build", Assert.Single(stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries)));
        Assert.False(Directory.Exists(cache));
        Assert.Empty(stdout);
    }

    [Fact]
    public async Task An_unknown_transport_is_one_line_and_exit_2()
    {
        var (exit, _, stderr) = await CliTests.RunWithAsync(null, "vm", "--owner", "1", "--state", _dir, "no-such-transport");

        Assert.True(exit == 2, $"exit {exit}: {stderr}");
        Assert.Contains("unknown transport 'no-such-transport'", Assert.Single(stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries)));
    }
}
