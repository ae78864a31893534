namespace IpcBench.Reporting.Collecting;

/// <summary>The commit a run measured, so that a figure can be traced to the code that produced it.</summary>
public static class GitCommit
{
    /// <summary>
    /// <c>git rev-parse HEAD</c> where the running program was built (its bin folder lies in the work
    /// tree it was built from), else in the current directory; null outside a work tree or without git.
    /// </summary>
    public static string? Current() => At(AppContext.BaseDirectory) ?? At(null);

    private static string? At(string? directory)
    {
        string? head = Tool.Output(directory, "git", "rev-parse", "HEAD");
        return head is { Length: 40 } && head.All(Uri.IsHexDigit) ? head : null;
    }
}
