using System.Globalization;
using IpcBench.Core.Kit.Processes;

namespace IpcBench.Core.Kit.Files;

/// <summary>
/// Private per-server directories for socket and shared-memory files. A path whose directory name
/// contains '*' (the default is <c>$TMPDIR/ipcbench-*/...</c>) gets a fresh directory with the '*'
/// replaced by the server's pid and a random part, created with mode 0700 so that no other user can
/// reach the files, and removed again when the server stops. A server that was killed cannot remove
/// its directory: whoever killed it does (<see cref="RemoveLeftBy"/>), and failing that the next server
/// to create a directory beside it, once that pid is gone (<see cref="RemoveStale"/>, which other
/// per-server files named "prefix-pid-random" use too).
/// </summary>
public static class PrivateDirectory
{
    /// <summary>
    /// Set by the launcher of a server in a sandbox of its own, whose pids start again at 1 (gVisor's): the pid of the
    /// process the host knows it by, so that the names of its files carry a pid whoever killed it can match.
    /// </summary>
    public const string PidOnHostVariable = "IPCBENCH_PID_ON_HOST";

    /// <summary>The default private directory pattern: <c>$TMPDIR/ipcbench-*</c>.</summary>
    public static string DefaultPattern => Path.Combine(Path.GetTempPath(), "ipcbench-*");

    /// <summary>A default path in a private directory under the temporary directory.</summary>
    public static string DefaultPath(string fileName) => Path.Combine(DefaultPattern, fileName);

    /// <summary>Private directories in memory (mmf's channels), where Linux has /dev/shm.</summary>
    public const string SharedMemoryPattern = "/dev/shm/ipcbench-*";

    /// <summary>
    /// Everywhere a server keeps files named "ipcbench-PID-random": its private directories, and the socket files of
    /// .NET pipes with generated names (StalePipe in the pipe transports knows how .NET names them).
    /// </summary>
    private static IEnumerable<string> ServerFilePatterns =>
        [DefaultPattern, SharedMemoryPattern, Path.Combine(Path.GetTempPath(), "CoreFxPipe_ipcbench-*")];

    /// <summary>
    /// Removes what the server process <paramref name="pid"/> made and could not remove itself: for whoever killed
    /// it (a frozen server cannot clean up). Nothing is touched while a process of that pid is alive.
    /// </summary>
    public static void RemoveLeftBy(int pid)
    {
        foreach (string pattern in ServerFilePatterns)
        {
            RemoveWhere(pattern, owner => owner == pid);
        }
    }

    /// <summary>
    /// Returns <paramref name="path"/> with its '*' directory created and filled in, and that directory in
    /// <paramref name="created"/> (null when the path has no '*', and nothing was created).
    /// </summary>
    public static string Resolve(string path, out string? created)
    {
        created = null;
        string? directory = Path.GetDirectoryName(path);
        if (directory is null || !Path.GetFileName(directory).Contains('*'))
        {
            return path;
        }
        RemoveStale(directory);
        for (int attempt = 0; ; attempt++)
        {
            string candidate = directory.Replace("*", UniqueName(), StringComparison.Ordinal);
            try
            {
                if (OperatingSystem.IsWindows())
                {
                    Directory.CreateDirectory(candidate);
                }
                else if (!Directory.Exists(candidate))
                {
                    Directory.CreateDirectory(candidate, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute);
                }
                else
                {
                    continue;
                }
                created = candidate;
                return Path.Combine(candidate, Path.GetFileName(path));
            }
            catch (IOException) when (attempt < 3)
            {
            }
        }
    }

    /// <summary>
    /// Removes the files and directories named like <paramref name="pattern"/> (a path whose last part
    /// holds '*', standing for "pid-random") whose process no longer exists: what killed servers left.
    /// </summary>
    public static void RemoveStale(string pattern) => RemoveWhere(pattern, _ => true);

    /// <summary>Removes the entries of <paramref name="pattern"/> whose pid <paramref name="owned"/> picks and no process holds.</summary>
    private static void RemoveWhere(string pattern, Func<int, bool> owned)
    {
        string? parent = Path.GetDirectoryName(pattern);
        string name = Path.GetFileName(pattern);
        int star = name.IndexOf('*');
        if (parent is null || star < 0 || !Directory.Exists(parent) || GVisor.IsRunningInside)
        {
            return; // inside gVisor no host pid is visible: every owner, live servers' included, would look gone
        }
        string prefix = name[..star];
        foreach (string entry in Directory.EnumerateFileSystemEntries(parent, prefix + "*"))
        {
            string rest = Path.GetFileName(entry)[prefix.Length..];
            int dash = rest.IndexOf('-');
            if (dash > 0 && int.TryParse(rest[..dash], out int pid) && owned(pid) && !ProcessLiveness.IsAlive(pid))
            {
                if (Directory.Exists(entry))
                {
                    Remove(entry);
                }
                else
                {
                    TryDeleteFile(entry);
                }
            }
        }
    }

    /// <summary>A fresh "pid-random" name part, as <see cref="RemoveStale"/> recognises it.</summary>
    public static string UniqueName() => $"{PidOnHost}-{Guid.NewGuid().ToString("N")[..8]}";

    private static int PidOnHost { get; } =
        int.TryParse(Environment.GetEnvironmentVariable(PidOnHostVariable), NumberStyles.None, CultureInfo.InvariantCulture, out int pid) && pid > 0
            ? pid
            : Environment.ProcessId;

    /// <summary>Deletes a file the process made (a socket, a channel), warning rather than failing when it cannot.</summary>
    public static void TryDeleteFile(string path)
    {
        try
        {
            File.Delete(path);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            Log.Warn($"could not remove {path}: {e.Message}");
        }
    }

    /// <summary>Removes a directory that <see cref="Resolve"/> created, with whatever is left in it.</summary>
    public static void Remove(string? created)
    {
        if (created is null)
        {
            return;
        }
        try
        {
            Directory.Delete(created, recursive: true);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            Log.Warn($"could not remove {created}: {e.Message}");
        }
    }
}
