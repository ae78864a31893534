namespace IpcBench.Core;

/// <summary>
/// Private per-server directories for socket and shared-memory files. A path whose directory name
/// contains '*' (the default is <c>$TMPDIR/ipcbench-*/...</c>) gets a fresh directory with the '*'
/// replaced by a random name, created with mode 0700 so that no other user can reach the files,
/// and removed again when the server stops.
/// </summary>
public static class PrivateDirectory
{
    /// <summary>A default path under the temporary directory for a file named <paramref name="fileName"/>.</summary>
    public static string DefaultPath(string fileName) => Path.Combine(Path.GetTempPath(), "ipcbench-*", fileName);

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
        for (int attempt = 0; ; attempt++)
        {
            string candidate = directory.Replace("*", Guid.NewGuid().ToString("N")[..12], StringComparison.Ordinal);
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
