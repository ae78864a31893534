using System.Runtime.InteropServices;
using IpcBench.Harness;
using IpcBench.Harness.Hosting;

namespace IpcBench.Reporting.Collecting;

/// <summary>
/// What the machine is, read where Linux keeps it. Anything that cannot be read is null (or
/// "unknown"), never a guess: a report is quoted later, far from the machine.
/// </summary>
public static class EnvironmentProbe
{
    public static RunEnvironment Describe(string placement, IReadOnlyDictionary<string, string> options)
    {
        var (isolation, evidence) = Isolation();
        return new RunEnvironment
        {
            Os = RuntimeInformation.OSDescription.Trim(),
            Kernel = Kernel(),
            CpuModel = CpuModel(),
            LogicalCpus = Environment.ProcessorCount,
            Runtime = RuntimeInformation.FrameworkDescription,
            Clocksource = FirstLine("/sys/devices/system/clocksource/clocksource0/current_clocksource"),
            CpuLimits = CpuLimits(),
            Isolation = isolation,
            IsolationEvidence = evidence,
            Placement = placement,
            Options = new SortedDictionary<string, string>(options.ToDictionary(o => o.Key, o => Secrets.Redact(o.Value)), StringComparer.Ordinal),
            WakeUp = WakeUp(),
        };
    }

    /// <summary>What waking a sleeping thread costs here now (<see cref="WakeUpProbe"/>), with the idle settings behind it.</summary>
    public static WakeUpFigures WakeUp()
    {
        const string cpuidle = "/sys/devices/system/cpu/cpuidle/";
        const string haltpoll = "/sys/module/haltpoll/parameters";
        var cost = WakeUpProbe.Measure();
        string? haltpollSettings = OrNull(() => Directory.Exists(haltpoll)
            ? string.Join(", ", Directory.GetFiles(haltpoll).Order(StringComparer.Ordinal).Select(f => $"{Path.GetFileName(f)}={FirstLine(f)}"))
            : null);
        return new WakeUpFigures
        {
            OneCpuUs = Round(cost?.OneCpuUs),
            CrossCpuIdleUs = Round(cost?.CrossCpuIdleUs),
            CrossCpuAwakeUs = Round(cost?.CrossCpuAwakeUs),
            CpuidleDriver = FirstLine(cpuidle + "current_driver"),
            CpuidleGovernor = FirstLine(cpuidle + "current_governor_ro") ?? FirstLine(cpuidle + "current_governor"),
            Haltpoll = haltpollSettings is { Length: > 0 } ? haltpollSettings : null,
        };
    }

    private static double? Round(double? us) => us is double v ? Math.Round(v, 2) : null;

    public static string? Kernel() =>
        FirstLine("/proc/sys/kernel/osrelease") ?? (OperatingSystem.IsWindows() ? null : Tool.Output(null, "uname", "-r"));

    public static string? CpuModel()
    {
        var modelName = ReadText("/proc/cpuinfo")?.Split('\n').Select(line => line.Split(':', 2))
            .FirstOrDefault(field => field.Length == 2 && field[0].Trim() == "model name");
        return modelName?[1].Trim() is { Length: > 0 } model ? model : null;
    }

    /// <summary>"cpus 0-1; quota none": this process's allowed CPUs and its cgroup's quota (v2 cpu.max, else v1 cfs_quota_us).</summary>
    public static string? CpuLimits()
    {
        string? allowed = ReadText("/proc/self/status")?.Split('\n')
            .FirstOrDefault(line => line.StartsWith("Cpus_allowed_list:", StringComparison.Ordinal))?.Split(':', 2)[1].Trim();
        if (allowed is null)
        {
            return null;
        }
        string[]? max = FirstLine("/sys/fs/cgroup/cpu.max")?.Split(' ');
        string? quota = FirstLine("/sys/fs/cgroup/cpu/cpu.cfs_quota_us") ?? max?[0];
        string? period = FirstLine("/sys/fs/cgroup/cpu/cpu.cfs_period_us") ?? max?.ElementAtOrDefault(1);
        string limit = double.TryParse(quota, System.Globalization.CultureInfo.InvariantCulture, out double q) && q > 0
            && double.TryParse(period, System.Globalization.CultureInfo.InvariantCulture, out double p) && p > 0
            ? $"{q / p:0.##} CPUs" : quota is null ? "unknown" : "none";
        return $"cpus {allowed}; quota {limit}";
    }

    /// <summary>
    /// "container" when the usual marks of one are there (/.dockerenv; docker, containerd or
    /// kubepods in /proc/1/cgroup); "namespace" when this process's network namespace is not
    /// init's; "unknown" when that cannot be read (it takes root); else "bare". In a VM guest (the
    /// CPU's hypervisor flag: a cloud VM, a Kata container's VM) "bare" is "vm" and "container" is
    /// "container+vm": a VM's exits and virtual interrupts are in every figure.
    /// </summary>
    public static (string Isolation, string Evidence) Isolation()
    {
        var (isolation, evidence) = Containment();
        if (Hypervisor() is not { } vm)
        {
            return (isolation, evidence);
        }
        return isolation switch
        {
            "bare" => ("vm", $"{vm}; {evidence}"),
            "container" => ("container+vm", $"{evidence}; {vm}"),
            _ => (isolation, $"{evidence}; {vm}"),
        };
    }

    private static (string Isolation, string Evidence) Containment()
    {
        if (File.Exists("/.dockerenv"))
        {
            return ("container", "/.dockerenv exists");
        }
        if (ReadText("/proc/1/cgroup") is { } cgroup
            && new[] { "docker", "containerd", "kubepods" }.FirstOrDefault(m => cgroup.Contains(m, StringComparison.Ordinal)) is { } mark)
        {
            return ("container", $"/proc/1/cgroup mentions {mark}");
        }
        string? self = LinkTarget("/proc/self/ns/net");
        string? init = LinkTarget("/proc/1/ns/net");
        if (self is null || init is null)
        {
            return ("unknown", "no container marks; /proc/1/ns/net is not readable");
        }
        return self == init
            ? ("bare", $"no container marks; network namespace {self} is init's")
            : ("namespace", $"network namespace {self}, init's is {init}");
    }

    /// <summary>"a VM guest (the CPU has the hypervisor flag; vendor QEMU)", or null on bare metal or where /proc/cpuinfo is not readable.</summary>
    public static string? Hypervisor()
    {
        bool guest = ReadText("/proc/cpuinfo")?.Split('\n')
            .Any(line => line.StartsWith("flags", StringComparison.Ordinal) && line.Split(' ').Contains("hypervisor")) == true;
        if (!guest)
        {
            return null;
        }
        string? vendor = FirstLine("/sys/class/dmi/id/sys_vendor");
        return $"a VM guest (the CPU has the hypervisor flag{(vendor is null ? "" : $"; vendor {vendor}")})";
    }

    private static string? LinkTarget(string path) => OrNull(() => new FileInfo(path).LinkTarget);

    private static string? FirstLine(string path) =>
        ReadText(path)?.Split('\n')[0].Trim() is { Length: > 0 } line ? line : null;

    private static string? ReadText(string path) => OrNull(() => File.Exists(path) ? File.ReadAllText(path) : null);

    /// <summary>What <paramref name="read"/> finds, or null where the file system will not say.</summary>
    private static string? OrNull(Func<string?> read)
    {
        try
        {
            return read();
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return null;
        }
    }
}
