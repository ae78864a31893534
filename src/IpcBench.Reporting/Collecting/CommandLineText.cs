namespace IpcBench.Reporting.Collecting;

/// <summary>A command line as a person would type it again: arguments quoted for a POSIX shell where needed.</summary>
public static class CommandLineText
{
    public static string Join(string program, IEnumerable<string> args) =>
        string.Join(' ', args.Select(Quote).Prepend(program));

    public static string Quote(string arg) =>
        arg.Length > 0 && arg.All(c => char.IsAsciiLetterOrDigit(c) || "-_./=:,%@+".Contains(c))
            ? arg
            : "'" + arg.Replace("'", "'\\''", StringComparison.Ordinal) + "'";
}
