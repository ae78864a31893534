using System.Globalization;
using IpcBench.Harness;
using IpcBench.Reporting.Writers;

namespace IpcBench.Reporting.Collecting;

/// <summary>
/// Where runs are kept: one folder per run, named after its UTC start time and kind
/// (results/20261122-005250-bench/), never overwritten, and marked incomplete until its results are all written.
/// </summary>
public static class RunFolder
{
    public const string ResultsVariable = "IPCBENCH_RESULTS";

    /// <summary>
    /// <paramref name="configured"/> if given, else IPCBENCH_RESULTS, else results/ at the repository
    /// root (the nearest folder up from the current one that holds IpcBench.sln), else ./results.
    /// </summary>
    public static string Root(string? configured = null)
    {
        if (configured is { Length: > 0 })
        {
            return Path.GetFullPath(configured);
        }
        if (Environment.GetEnvironmentVariable(ResultsVariable) is { Length: > 0 } variable)
        {
            return Path.GetFullPath(variable);
        }
        return RepositoryRoot.Find(Directory.GetCurrentDirectory()) is { } root ? Path.Combine(root, "results") : Path.GetFullPath("results");
    }

    /// <summary>A run's id: its UTC start time to the second, then its kind ("20261122-005250-ping").</summary>
    public static string Id(DateTimeOffset started, string kind) =>
        $"{started.UtcDateTime.ToString("yyyyMMdd-HHmmss", CultureInfo.InvariantCulture)}-{kind}";

    /// <summary>
    /// The file a run folder holds from its creation until <see cref="ReportWriter"/> has written everything: a run
    /// that is under way, or was stopped or failed before it finished. 'report', 'compare' and 'merge' refuse such a folder.
    /// </summary>
    public const string IncompleteMarker = "INCOMPLETE";

    /// <summary>
    /// Creates <paramref name="root"/>/<paramref name="id"/>, or with a suffix (-2, -3 ...) if that exists already, marked
    /// incomplete (see <see cref="IncompleteMarker"/>). The folder is made under a name of its own, marker inside, and
    /// renamed into place: a rename onto an existing run folder fails, so two runs started in the same second (two
    /// processes) never share one.
    /// </summary>
    public static string Create(string root, string id)
    {
        Directory.CreateDirectory(root);
        string staging = Directory.CreateDirectory(Path.Combine(root, $".{id}.{Guid.NewGuid():N}.partial")).FullName;
        try
        {
            File.WriteAllText(Path.Combine(staging, IncompleteMarker),
                $"This run (process {Environment.ProcessId}, started {DateTime.UtcNow:u}) has not finished writing its results: "
                + "it is under way, or it was stopped or failed. What this folder holds is not to be compared.\n");
            for (int n = 1; ; n++)
            {
                string candidate = Path.GetFullPath(Path.Combine(root, n == 1 ? id : $"{id}-{n}"));
                if (Directory.Exists(candidate) || File.Exists(candidate))
                {
                    continue;
                }
                try
                {
                    Directory.Move(staging, candidate);
                    return candidate;
                }
                catch (IOException) when (Directory.Exists(candidate) || File.Exists(candidate))
                {
                    // another run took it between the look and the rename: the next suffix
                }
            }
        }
        finally
        {
            if (Directory.Exists(staging))
            {
                Directory.Delete(staging, recursive: true);
            }
        }
    }

    public static void MarkComplete(string folder) => File.Delete(Path.Combine(folder, IncompleteMarker));

    public static bool IsIncomplete(string folder) => File.Exists(Path.Combine(folder, IncompleteMarker));

    /// <summary>Removes the folder of a run that ran nothing (the suite given --list or a filter that matches nothing).</summary>
    public static void DiscardEmpty(string folder)
    {
        MarkComplete(folder);
        if (Directory.Exists(folder) && !Directory.EnumerateFileSystemEntries(folder).Any())
        {
            Directory.Delete(folder);
        }
    }

    /// <summary>
    /// Why <paramref name="root"/> cannot take run folders (it cannot be created, or a file cannot be written in it),
    /// or null when it can: asked before a run, so that a run is not measured only to be lost. Leaves the disk as it was.
    /// </summary>
    public static string? Unwritable(string root)
    {
        string? existing = root;
        while (existing is not null && !Path.Exists(existing))
        {
            existing = Path.GetDirectoryName(existing);
        }
        string probe = Path.Combine(root, $".ipcbench-probe-{Environment.ProcessId}");
        try
        {
            Directory.CreateDirectory(root);
            File.WriteAllText(probe, "");
            File.Delete(probe);
            return null;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return e.Message.TrimEnd('.');
        }
        finally
        {
            for (string? dir = root; dir is not null && dir != existing && Directory.Exists(dir)
                && !Directory.EnumerateFileSystemEntries(dir).Any(); dir = Path.GetDirectoryName(dir))
            {
                Directory.Delete(dir);
            }
        }
    }
}
