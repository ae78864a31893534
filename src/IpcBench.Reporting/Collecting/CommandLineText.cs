using IpcBench.Harness;

namespace IpcBench.Reporting.Collecting;

/// <summary>
/// A command line as a person would type it again: arguments quoted for a POSIX shell where needed, and the user info
/// of any address in it (a password) as <see cref="Secrets.Mask"/>.
/// </summary>
public static class CommandLineText
{
    public static string Join(string program, IEnumerable<string> args) =>
        Secrets.Redact(string.Join(' ', args.Select(Quote).Prepend(program)));

    public static string Quote(string arg) =>
        arg.Length > 0 && arg.All(c => char.IsAsciiLetterOrDigit(c) || "-_./=:,%@+".Contains(c))
            ? arg
            : "'" + arg.Replace("'", "'\\''", StringComparison.Ordinal) + "'";
}
