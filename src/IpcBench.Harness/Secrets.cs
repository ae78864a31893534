using System.Text;
using System.Text.RegularExpressions;

namespace IpcBench.Harness;

/// <summary>
/// Credentials in addresses (<c>amqp://user:password@host/</c>) never leave the process: every text IpcBench shows or
/// records passes through <see cref="Redact(string)"/>, which replaces a URI's user info, whatever the scheme, with
/// <c>***</c>. Two places apply it: the console (<see cref="RedactConsole"/>, installed by each entry point) and the
/// results record (its command line and options, as they are made).
/// </summary>
public static partial class Secrets
{
    /// <summary>What stands for the user info.</summary>
    public const string Mask = "***";

    // scheme://USERINFO@ where USERINFO runs to the last '@' before the authority ends (a password may hold a raw '@').
    [GeneratedRegex(@"(?<=\b[A-Za-z][A-Za-z0-9+.\-]*://)[^/?#\s'""`<>\\]+@")]
    private static partial Regex UserInfo();

    private static int _consoleRedacted;

    public static string Redact(string text) =>
        text.Contains("://", StringComparison.Ordinal) ? UserInfo().Replace(text, Mask + "@") : text;

    /// <summary>Routes stdout and stderr through <see cref="Redact(string)"/>; once per process, whoever calls it first.</summary>
    public static void RedactConsole()
    {
        if (Interlocked.Exchange(ref _consoleRedacted, 1) == 0)
        {
            Console.SetOut(new RedactingWriter(Console.Out));
            Console.SetError(new RedactingWriter(Console.Error));
        }
    }

    /// <summary>
    /// Redacts each string written. Every line IpcBench writes is one call, so an address is never split across two;
    /// single characters pass as they are.
    /// </summary>
    private sealed class RedactingWriter(TextWriter inner) : TextWriter
    {
        public override Encoding Encoding => inner.Encoding;

        public override IFormatProvider FormatProvider => inner.FormatProvider;

        public override void Write(char value) => inner.Write(value);

        public override void Write(string? value) => inner.Write(value is null ? null : Redact(value));

        public override void Write(char[] buffer, int index, int count) => Write(new string(buffer, index, count));

        public override void WriteLine(string? value) => inner.WriteLine(value is null ? null : Redact(value));

        public override void WriteLine() => inner.WriteLine();

        public override void Flush() => inner.Flush();

        public override Task FlushAsync() => inner.FlushAsync();

        public override Task WriteAsync(string? value) => inner.WriteAsync(value is null ? null : Redact(value));

        public override Task WriteLineAsync(string? value) => inner.WriteLineAsync(value is null ? null : Redact(value));
    }
}
