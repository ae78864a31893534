using System.Globalization;

namespace IpcBench.Reporting.Collecting;

/// <summary>
/// Where runs are kept: one folder per run, named after its UTC start time and kind
/// (results/20261122-005250-bench/), never overwritten.
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
        for (var dir = new DirectoryInfo(Directory.GetCurrentDirectory()); dir is not null; dir = dir.Parent)
        {
            if (File.Exists(Path.Combine(dir.FullName, "IpcBench.sln")))
            {
                return Path.Combine(dir.FullName, "results");
            }
        }
        return Path.GetFullPath("results");
    }

    /// <summary>A run's id: its UTC start time to the second, then its kind ("20261122-005250-ping").</summary>
    public static string Id(DateTimeOffset started, string kind) =>
        $"{started.UtcDateTime.ToString("yyyyMMdd-HHmmss", CultureInfo.InvariantCulture)}-{kind}";

    /// <summary>Creates <paramref name="root"/>/<paramref name="id"/>, or with a suffix (-2, -3 ...) if that exists already.</summary>
    public static string Create(string root, string id)
    {
        Directory.CreateDirectory(root);
        for (int n = 1; ; n++)
        {
            string candidate = Path.Combine(root, n == 1 ? id : $"{id}-{n}");
            if (!Directory.Exists(candidate) && !File.Exists(candidate))
            {
                return Directory.CreateDirectory(candidate).FullName;
            }
        }
    }
}
