namespace IpcBench.Harness.Hosting;

/// <summary>Whether this process runs under gVisor, the kernel in user space of sandboxed containers (runsc).</summary>
public static class GVisor
{
    /// <summary>
    /// gVisor's kernel reports a fixed version string of its own, where a Linux kernel names its build
    /// ("Linux version 4.4.0 #1 SMP Sun Jan 10 15:06:54 PST 2016" in every release so far).
    /// </summary>
    public static bool IsRunningInside { get; } = OperatingSystem.IsLinux()
        && File.Exists("/proc/version") && File.ReadAllText("/proc/version").Contains("#1 SMP Sun Jan 10 15:06:54 PST 2016", StringComparison.Ordinal);
}
