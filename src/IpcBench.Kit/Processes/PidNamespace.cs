using System.Globalization;

namespace IpcBench.Kit.Processes;

/// <summary>
/// Pids as the names of a server's files carry them ("ipcbench-PID-random"), so that whoever kills a server can remove
/// its files and a later server can tell a dead one's from a live one's. A server in a pid namespace of its own (a
/// container's, gVisor's) is pid 1 or so inside, its starter knows it by another pid, and no host pid it sees is alive:
/// its starter tells it that pid (<see cref="StarterPidVariable"/>), it names its files with it, and it judges no one's files
/// stale (<see cref="SeesHostPids"/>). One mechanism for every isolation, whatever comes next.
/// </summary>
public static class PidNamespace
{
    /// <summary>Set by the starter of a server in a pid namespace of its own: the pid the starter knows it by.</summary>
    public const string StarterPidVariable = "IPCBENCH_PID_ON_HOST";

    /// <summary>The pid this process's files are named by: the one its starter knows it by (and kills it by), else its own.</summary>
    public static int StarterPid { get; } =
        int.TryParse(Environment.GetEnvironmentVariable(StarterPidVariable), NumberStyles.None, CultureInfo.InvariantCulture, out int pid) && pid > 0
            ? pid
            : Environment.ProcessId;

    /// <summary>
    /// Whether the pids this process sees are the ones files are named by: no starter said otherwise, and on Linux this is
    /// the machine's first pid namespace. Only then may it judge, by a pid, that a process is gone.
    /// </summary>
    public static bool SeesHostPids { get; } = StarterPid == Environment.ProcessId && (!OperatingSystem.IsLinux() || IsInitialNamespace());

    /// <summary>
    /// In the machine's first pid namespace kthreadd, the kernel's thread starter, is pid 2 and has no parent (ppid 0); in
    /// any other no kernel thread is visible, and only the namespace's init has a parent outside it. /proc must be this
    /// namespace's own for that to say anything: /proc/self names this process's pid.
    /// </summary>
    private static bool IsInitialNamespace()
    {
        try
        {
            if (new DirectoryInfo("/proc/self").LinkTarget != Environment.ProcessId.ToString(CultureInfo.InvariantCulture))
            {
                return false;
            }
            string[] stat = File.ReadAllText("/proc/2/stat").Split(' ');
            return stat is ["2", "(kthreadd)", _, "0", ..];
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return false; // unreadable: not proved
        }
    }
}
