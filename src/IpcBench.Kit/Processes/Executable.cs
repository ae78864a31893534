namespace IpcBench.Kit.Processes;

/// <summary>A program on PATH, as a shell would find it.</summary>
public static class Executable
{
    /// <summary>The full path of <paramref name="name"/> in the first PATH folder that holds it, or null.</summary>
    public static string? Find(string name) =>
        (Environment.GetEnvironmentVariable("PATH") ?? "").Split(Path.PathSeparator)
            .Where(dir => dir.Length > 0).Select(dir => Path.Combine(dir, name)).FirstOrDefault(File.Exists);
}
