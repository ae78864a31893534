using System.Diagnostics;
using System.Globalization;

namespace IpcBench.Kit.Processes;

/// <summary>
/// Kills a process and every process it started, with SIGKILL alone, from a walk of /proc. The runtime's
/// <c>Process.Kill(entireProcessTree: true)</c> first stops the whole tree with SIGSTOP and then takes each child's wait
/// lock; on macOS that hangs for good (dotnet/runtime#131944), and here a test host's tree kill waited forever on a
/// SIGCHLD handler that was itself stuck (hang dump). Without the stop, a process that forks between the walk and the
/// kill can leave a child behind: the processes IpcBench starts watch their parent and go with it anyway.
/// </summary>
public static class ProcessTree
{
    private const int SigKill = 9;

    public static void Kill(Process process)
    {
        if (!OperatingSystem.IsLinux())
        {
            process.Kill(entireProcessTree: true); // no SIGSTOP phase on Windows; macOS has no /proc to walk
            return;
        }
        var descendants = Descendants(process.Id); // before the kill: the children of a dead process move to another parent
        try
        {
            process.Kill();
        }
        catch (InvalidOperationException)
        {
            // It exited meanwhile: its children may not have.
        }
        foreach (int pid in descendants)
        {
            ProcessLiveness.Signal(pid, SigKill);
        }
    }

    /// <summary>The processes <paramref name="pid"/> started that still run (Linux; none elsewhere).</summary>
    public static IReadOnlyList<int> Children(int pid) => ChildrenByParent().GetValueOrDefault(pid) ?? [];

    /// <summary>Every process below <paramref name="root"/>, parents before their children (Linux; none elsewhere).</summary>
    public static IReadOnlyList<int> Descendants(int root)
    {
        var children = ChildrenByParent();
        var found = new List<int>();
        var pending = new Queue<int>([root]);
        while (pending.TryDequeue(out int pid))
        {
            foreach (int child in children.GetValueOrDefault(pid) ?? [])
            {
                found.Add(child);
                pending.Enqueue(child);
            }
        }
        return found;
    }

    /// <summary>Every process's children, from the parent pids /proc gives.</summary>
    private static Dictionary<int, List<int>> ChildrenByParent()
    {
        var children = new Dictionary<int, List<int>>();
        foreach (string directory in OperatingSystem.IsLinux() ? Directory.EnumerateDirectories("/proc") : [])
        {
            if (int.TryParse(Path.GetFileName(directory), NumberStyles.None, CultureInfo.InvariantCulture, out int pid)
                && ParentOf(directory) is int parent)
            {
                (children.TryGetValue(parent, out var list) ? list : children[parent] = []).Add(pid);
            }
        }
        return children;
    }

    /// <summary>The parent pid in /proc/PID/stat ("pid (name) state ppid ..."; the name may hold spaces and parentheses); null once gone.</summary>
    private static int? ParentOf(string directory)
    {
        try
        {
            string stat = File.ReadAllText(Path.Combine(directory, "stat"));
            string[] after = stat[(stat.LastIndexOf(')') + 2)..].Split(' ', 3);
            return int.Parse(after[1], CultureInfo.InvariantCulture);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or FormatException or IndexOutOfRangeException or ArgumentOutOfRangeException)
        {
            return null;
        }
    }
}
