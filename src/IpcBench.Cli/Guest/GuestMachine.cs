using System.Diagnostics;
using System.Globalization;
using System.Text.RegularExpressions;
using IpcBench.Kit.Processes;

namespace IpcBench.Cli.Guest;

/// <summary>
/// A booted guest: qemu on a tap device of its own (the host's end 169.254.79.1/30, the guest's .2: link-local, clear of
/// Docker's and the namespaces'), its serial console in a file, its pid in the state folder (docker/vm.sh stops the guest
/// of a vm.sh that was killed by it, while that pid still runs qemu on this tap). Disposing it stops qemu and removes the tap.
/// </summary>
internal sealed partial class GuestMachine(string tap, string state) : IAsyncDisposable
{
    public const string HostIp = "169.254.79.1", GuestIp = "169.254.79.2";
    private Process? _qemu;
    private bool _tapMade;

    private string Console => Path.Combine(state, "console.log");

    private string QemuLog => Path.Combine(state, "qemu.log");

    /// <summary>
    /// What runs of vm.sh that are gone (killed by SIGKILL: no trap ran) left outside their state folders: their taps
    /// (ipcbvmPID) and their half-built cache entries (.building-PID, .app-PID); only names of that form, and only
    /// while their pid runs no vm.sh.
    /// </summary>
    public static async Task SweepGoneAsync(string cache, CancellationToken ct)
    {
        foreach (string entry in Directory.Exists(cache) ? Directory.EnumerateDirectories(cache) : [])
        {
            if (GoneOwner().Match(Path.GetFileName(entry)) is { Success: true } m && Gone(m.Groups[1].Value) && new DirectoryInfo(entry).LinkTarget is null)
            {
                Directory.Delete(entry, recursive: true);
            }
        }
        foreach (Match tap in GoneTap().Matches((await IpAsync(ct, "-o", "link", "show")).Stdout))
        {
            if (Gone(tap.Groups[2].Value))
            {
                System.Console.WriteLine($"== removing the tap {tap.Groups[1].Value} (its vm.sh is gone)");
                await IpAsync(ct, "link", "del", tap.Groups[1].Value);
            }
        }
    }

    private static bool Gone(string pid) => !ProcessLiveness.Runs(int.Parse(pid, CultureInfo.InvariantCulture), "vm.sh");

    [GeneratedRegex(@"^\.(?:building|app)-([1-9][0-9]{0,8})$")]
    private static partial Regex GoneOwner();

    [GeneratedRegex(@"^\d+: (ipcbvm([1-9][0-9]{0,8}))[:@]", RegexOptions.Multiline)]
    private static partial Regex GoneTap();

    /// <summary>The tap, with the host's end of the /30.</summary>
    public async Task MakeTapAsync(CancellationToken ct)
    {
        if ((await IpAsync(ct, "tuntap", "add", "dev", tap, "mode", "tap")).ExitCode != 0)
        {
            throw new UnsupportedException($"cannot make a tap device ({tap})");
        }
        _tapMade = true;
        foreach (string[] step in new[] { new[] { "addr", "add", $"{HostIp}/30", "dev", tap }, ["link", "set", tap, "up"] })
        {
            if (await IpAsync(ct, step) is { ExitCode: not 0 } failed)
            {
                throw new InvalidOperationException($"ip {string.Join(' ', step)} failed: {failed.LastError}");
            }
        }
    }

    /// <summary>Starts qemu under <paramref name="accel"/> (kvm or tcg) with the servers the guest's init starts ("tcp:5000,...").</summary>
    public void Boot(GuestImage image, string accel, string servers)
    {
        System.Console.WriteLine($"== booting the guest (qemu -accel {accel}), servers: {servers.Replace(',', ' ')}");
        File.WriteAllText(Console, "");
        string[] qemu = ["qemu-system-x86_64", "-accel", accel, .. accel == "kvm" ? new[] { "-cpu", "host" } : [],
            "-m", "1536", "-smp", "1", "-nodefaults", "-no-user-config", "-display", "none", "-no-reboot",
            "-kernel", image.Kernel, "-initrd", image.Initrd,
            "-append", $"console=ttyS0 quiet panic=-1 ipcbench_ip={GuestIp}/30 ipcbench_servers={servers}",
            "-netdev", $"tap,id=n0,ifname={tap},script=no,downscript=no", "-device", "virtio-net-pci,netdev=n0,romfile=",
            "-serial", $"file:{Console}"];
        // Through sh for its redirections: the pid is qemu's once sh execs it.
        var info = new ProcessStartInfo("sh") { UseShellExecute = false };
        foreach (string argument in (string[])["-c", "exec \"$@\" </dev/null >\"$0\" 2>&1", QemuLog, .. qemu])
        {
            info.ArgumentList.Add(argument);
        }
        _qemu = Process.Start(info) ?? throw new InvalidOperationException("could not start qemu");
        File.WriteAllText(Path.Combine(state, "qemu.pid"), $"{_qemu.Id}\n");
    }

    /// <summary>Waits until the console has a line <paramref name="pattern"/> matches; false when qemu ends first or the time is up.</summary>
    public async Task<bool> WaitForAsync(Regex pattern, TimeSpan within, CancellationToken ct)
    {
        var deadline = Stopwatch.StartNew();
        while (deadline.Elapsed < within)
        {
            if (Lines().Any(pattern.IsMatch))
            {
                return true;
            }
            if (_qemu is null || _qemu.HasExited)
            {
                return Lines().Any(pattern.IsMatch);
            }
            await Task.Delay(500, ct);
        }
        return false;
    }

    /// <summary>The console's lines, without the firmware's escape sequences and carriage returns.</summary>
    public IEnumerable<string> Lines() =>
        File.Exists(Console) ? Escapes().Replace(File.ReadAllText(Console), "").Split('\n') : [];

    [GeneratedRegex("\u001b\\[[0-9;?]*[A-Za-z]|\u001bc|\r")]
    private static partial Regex Escapes();

    /// <summary>What went wrong, for stderr: qemu's last lines and the console's.</summary>
    public string Tail() =>
        "-- qemu:\n" + string.Join('\n', (File.Exists(QemuLog) ? File.ReadAllLines(QemuLog) : []).TakeLast(5))
        + "\n-- the guest's console (last 30 lines):\n" + string.Join('\n', Lines().TakeLast(30));

    /// <summary>The last line of qemu's own output (why KVM did not boot).</summary>
    public string QemuSaid() => File.Exists(QemuLog) ? File.ReadAllLines(QemuLog).LastOrDefault() ?? "" : "";

    /// <summary>Stops qemu: SIGTERM, 10 s to end, then SIGKILL.</summary>
    public async Task StopAsync()
    {
        if (_qemu is null)
        {
            return;
        }
        if (!_qemu.HasExited)
        {
            ProcessLiveness.Terminate(_qemu);
            using var grace = new CancellationTokenSource(TimeSpan.FromSeconds(10));
            try
            {
                await _qemu.WaitForExitAsync(grace.Token);
            }
            catch (OperationCanceledException)
            {
                _qemu.Kill();
                await _qemu.WaitForExitAsync(CancellationToken.None);
            }
        }
        _qemu.Dispose();
        _qemu = null;
        File.Delete(Path.Combine(state, "qemu.pid"));
    }

    /// <summary>The guest, then its tap.</summary>
    public async ValueTask DisposeAsync()
    {
        await StopAsync();
        if (_tapMade)
        {
            await IpAsync(CancellationToken.None, "link", "del", tap);
            _tapMade = false;
        }
    }

    /// <summary>What is left of the guest when it should be gone (--check): its tap, a qemu on it; null when nothing is.</summary>
    public async Task<string?> LeftBehindAsync()
    {
        if ((await IpAsync(CancellationToken.None, "link", "show", tap)).ExitCode == 0)
        {
            return $"the tap {tap} is still there";
        }
        foreach (string? process in Directory.EnumerateDirectories("/proc").Select(Path.GetFileName))
        {
            if (int.TryParse(process, out int pid) && ProcessLiveness.Runs(pid, $"ifname={tap},"))
            {
                return $"a qemu of this run still runs (pid {pid})";
            }
        }
        return null;
    }

    private static Task<ChildOutput> IpAsync(CancellationToken ct, params string[] arguments)
    {
        var info = new ProcessStartInfo("ip");
        foreach (string argument in arguments)
        {
            info.ArgumentList.Add(argument);
        }
        return BoundedChild.RunAsync(info, "ip " + string.Join(' ', arguments), TimeSpan.FromSeconds(30), ct);
    }
}
