namespace IpcBench.Harness;

/// <summary>The IpcBench checkout a program runs in: where results/ and artifacts/ go by default.</summary>
public static class RepositoryRoot
{
    /// <summary>The nearest folder up from the first of <paramref name="starts"/> that has one, holding IpcBench.sln; else null.</summary>
    public static string? Find(params string[] starts)
    {
        foreach (string start in starts)
        {
            for (var dir = new DirectoryInfo(start); dir is not null; dir = dir.Parent)
            {
                if (File.Exists(Path.Combine(dir.FullName, "IpcBench.sln")))
                {
                    return dir.FullName;
                }
            }
        }
        return null;
    }
}
