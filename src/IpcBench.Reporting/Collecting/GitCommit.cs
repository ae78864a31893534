using System.Reflection;

namespace IpcBench.Reporting.Collecting;

/// <summary>The commit a run measured, so that a figure can be traced to the code that produced it.</summary>
public static class GitCommit
{
    /// <summary>
    /// The commit the running program was built from, as the SDK stamps it into the informational version
    /// ("1.0.0+SHA"); failing that, <c>git rev-parse HEAD</c> where it was built (its bin folder lies in the work tree it
    /// was built from), else in the current directory; null outside a work tree or without git. The stamp first: a
    /// build kept outside its tree (benchmarks/ab.sh's of another revision) run from this repository would otherwise
    /// be labelled with this repository's HEAD.
    /// </summary>
    public static string? Current() => Stamped() ?? At(AppContext.BaseDirectory) ?? At(null);

    /// <summary>The commit in this assembly's informational version, when the SDK put one there.</summary>
    public static string? Stamped() =>
        typeof(GitCommit).Assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion is { } version
        && version.IndexOf('+', StringComparison.Ordinal) is var plus and >= 0 && IsCommit(version[(plus + 1)..]) ? version[(plus + 1)..] : null;

    private static string? At(string? directory)
    {
        string? head = Tool.Output(directory, "git", "rev-parse", "HEAD");
        return head is not null && IsCommit(head) ? head : null;
    }

    private static bool IsCommit(string text) => text is { Length: 40 } && text.All(Uri.IsHexDigit);
}
