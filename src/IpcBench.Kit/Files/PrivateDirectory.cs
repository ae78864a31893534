using System.Text.RegularExpressions;
using IpcBench.Kit.Processes;

namespace IpcBench.Kit.Files;

/// <summary>
/// Private per-server directories for socket and shared-memory files. A path whose directory name
/// contains '*' (the default is <c>$TMPDIR/ipcbench-*/...</c>) gets a fresh directory with the '*'
/// replaced by the server's pid and a random part, created with mode 0700 so that no other user can
/// reach the files, and removed again when the server stops. A server that was killed cannot remove
/// its directory: whoever killed it does (<see cref="RemoveLeftBy"/>), and failing that the next server
/// to create a directory beside it, once that pid is gone (<see cref="RemoveStale"/>).
/// <para>Removal touches only what it can prove IpcBench made: an entry named exactly as it names them
/// (<c>ipcbench-PID-8 hex digits</c>, or a .NET pipe's <c>CoreFxPipe_ipcbench-PID-8 hex digits</c>), of the kind it makes
/// there (a 0700 directory, a socket), owned by this user, whose pid no process holds, judged only by a process that sees
/// the host's pids (<see cref="PidNamespace.SeesHostPids"/>). A '*' a user puts elsewhere in a path gets a fresh
/// directory too, but never a sweep of its neighbours.</para>
/// </summary>
public static partial class PrivateDirectory
{
    private const string Prefix = "ipcbench-";

    /// <summary>The default private directory pattern: <c>$TMPDIR/ipcbench-*</c>.</summary>
    public static string DefaultPattern => Path.Combine(Path.GetTempPath(), Prefix + "*");

    /// <summary>A default path in a private directory under the temporary directory.</summary>
    public static string DefaultPath(string fileName) => Path.Combine(DefaultPattern, fileName);

    /// <summary>Private directories in memory (mmf's channels), where Linux has /dev/shm.</summary>
    public const string SharedMemoryPattern = "/dev/shm/" + Prefix + "*";

    /// <summary>How .NET names the socket file of pipe NAME on Unix: what a pipe named "ipcbench-PID-random" leaves.</summary>
    public const string PipeSocketPrefix = "CoreFxPipe_";

    /// <summary>How IpcBench names what a server leaves, and what kind of file each is: its private directories, .NET pipes' socket files.</summary>
    private static readonly (string NamePrefix, Func<string, bool> IsOfItsKind)[] Shapes =
    [
        (Prefix, FileKinds.IsPrivateDirectoryOfMine),
        (PipeSocketPrefix + Prefix, FileKinds.IsSocketOfMine),
    ];

    /// <summary>Where a server leaves them when nothing else is asked for.</summary>
    private static IEnumerable<string> DefaultPatterns =>
        [DefaultPattern, SharedMemoryPattern, Path.Combine(Path.GetTempPath(), PipeSocketPrefix + Prefix + "*")];

    /// <summary>
    /// Removes what the server process <paramref name="pid"/> made and could not remove itself: for whoever killed
    /// it (a frozen server cannot clean up). Nothing is touched while a process of that pid is alive.
    /// </summary>
    public static void RemoveLeftBy(int pid)
    {
        foreach (string pattern in DefaultPatterns)
        {
            Sweep(pattern, owner => owner == pid);
        }
    }

    /// <summary>
    /// Removes what servers that are gone left at <paramref name="pattern"/>, a folder and one of IpcBench's own names with
    /// '*' for "pid-random" (<c>/tmp/ipcbench-*</c>); a pattern of any other name removes nothing.
    /// </summary>
    public static void RemoveStale(string pattern) => Sweep(pattern, _ => true);

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
    /// Removes the entries of <paramref name="pattern"/>'s folder named as IpcBench names them, of the kind it makes under
    /// that name, whose pid <paramref name="owned"/> picks and no process holds.
    /// </summary>
    private static void Sweep(string pattern, Func<int, bool> owned)
    {
        string? parent = Path.GetDirectoryName(pattern);
        string name = Path.GetFileName(pattern);
        var shape = Shapes.FirstOrDefault(s => name == s.NamePrefix + "*");
        if (parent is null || shape.NamePrefix is not { } prefix || !Directory.Exists(parent) || !PidNamespace.SeesHostPids)
        {
            return; // not a name of IpcBench's; or where pids are not the host's, every owner, live servers' included, would look gone
        }
        foreach (string entry in Directory.EnumerateFileSystemEntries(parent, prefix + "*"))
        {
            string rest = Path.GetFileName(entry)[prefix.Length..];
            if (OwnName().Match(rest) is { Success: true } match && int.TryParse(match.Groups[1].ValueSpan, out int pid)
                && owned(pid) && shape.IsOfItsKind(entry) && !ProcessLiveness.IsAlive(pid))
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

    /// <summary>The part of a name <see cref="UniqueName"/> makes: the pid, a dash, eight lower-case hex digits, nothing else.</summary>
    [GeneratedRegex("^([1-9][0-9]{0,9})-[0-9a-f]{8}$")]
    private static partial Regex OwnName();

    /// <summary>A fresh "pid-random" name part, as <see cref="RemoveStale"/> recognises it.</summary>
    public static string UniqueName() => $"{PidNamespace.StarterPid}-{Guid.NewGuid().ToString("N")[..8]}";

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
