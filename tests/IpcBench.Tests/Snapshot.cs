using System.Runtime.CompilerServices;

namespace IpcBench.Tests;

/// <summary>
/// Expected output kept as files under Snapshots/, compared exactly. After a deliberate change to a
/// report, set IPCBENCH_UPDATE_SNAPSHOTS=1 once to rewrite them, and review the diff.
/// </summary>
internal static class Snapshot
{
    public static void Match(string name, string actual)
    {
        string path = Path.Combine(Folder(), name);
        if (Environment.GetEnvironmentVariable("IPCBENCH_UPDATE_SNAPSHOTS") == "1")
        {
            File.WriteAllText(path, actual);
        }
        Assert.True(File.Exists(path), $"no snapshot {path}; run with IPCBENCH_UPDATE_SNAPSHOTS=1 to create it");
        Assert.Equal(File.ReadAllText(path), actual);
    }

    public static string Read(string name) => File.ReadAllText(Path.Combine(Folder(), name));

    /// <summary>Beside this source file; else found from the test binary up (a build with mapped source paths).</summary>
    private static string Folder([CallerFilePath] string source = "")
    {
        string beside = Path.Combine(Path.GetDirectoryName(source) ?? "", "Snapshots");
        if (Directory.Exists(beside))
        {
            return beside;
        }
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            string candidate = Path.Combine(dir.FullName, "tests", "IpcBench.Tests", "Snapshots");
            if (Directory.Exists(candidate))
            {
                return candidate;
            }
        }
        throw new DirectoryNotFoundException($"no Snapshots folder beside {source} or above {AppContext.BaseDirectory}");
    }
}
