using System.Diagnostics;
using System.Runtime.InteropServices;

namespace IpcBench.Kit.Processes;

/// <summary>Whether a process still exists: how servers, clients and cleanup notice that a peer died.</summary>
public static partial class ProcessLiveness
{
    public static bool IsAlive(int pid)
    {
        if (pid <= 0)
        {
            return false;
        }
        if (!OperatingSystem.IsWindows())
        {
            // Signal 0 checks without signalling; EPERM means it exists but belongs to someone else.
            return Signal(pid, 0) == 0 || Marshal.GetLastPInvokeError() == 1;
        }
        try
        {
            using var process = Process.GetProcessById(pid);
            return !process.HasExited;
        }
        catch (ArgumentException)
        {
            return false;
        }
    }

    /// <summary>
    /// A process's command line, its arguments joined by spaces (Linux's /proc); null when it is gone or cannot be read.
    /// How a sweep tells the process that made something from another that now has its pid.
    /// </summary>
    public static string? CommandLine(int pid)
    {
        try
        {
            return pid > 0 ? File.ReadAllText($"/proc/{pid}/cmdline").Replace('\0', ' ') : null;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return null;
        }
    }

    /// <summary>Whether <paramref name="pid"/> runs a command line holding <paramref name="pattern"/>: the one that made a thing still has it.</summary>
    public static bool Runs(int pid, string pattern) => CommandLine(pid)?.Contains(pattern, StringComparison.Ordinal) == true;

    /// <summary>SIGTERM to a child of this process that has not exited yet: the chance to end cleanly before <see cref="Process.Kill()"/>.</summary>
    public static void Terminate(Process child)
    {
        if (!OperatingSystem.IsWindows() && !child.HasExited)
        {
            Signal(child.Id, 15);
        }
    }

    /// <summary>kill(2): 0, or -1 with the error in <see cref="Marshal.GetLastPInvokeError"/>.</summary>
    [LibraryImport("libc", EntryPoint = "kill", SetLastError = true)]
    internal static partial int Signal(int pid, int signal);
}
