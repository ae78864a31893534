using System.Diagnostics.CodeAnalysis;
using IpcBench.Reporting;
using IpcBench.Reporting.Comparison;

namespace IpcBench.Cli.Commands;

/// <summary>How the verbs that read results (report, history) tell a damaged file or rounds measured apart: one line, then exit 2.</summary>
internal static class ResultsReading
{
    /// <summary>
    /// <paramref name="read"/>'s results; false, after one line on stderr (<c>ipcbench VERB: error: ...</c>), when a file is
    /// damaged or of another schema, or a folder's rounds were measured apart.
    /// </summary>
    public static bool TryRead<T>(string verb, Func<T> read, [MaybeNullWhen(false)] out T results)
    {
        try
        {
            results = read();
            return true;
        }
        catch (Exception e) when (e is ResultsFormatException or NotComparableException)
        {
            Console.Error.WriteLine($"ipcbench {verb}: error: {e.Message}");
            results = default;
            return false;
        }
    }
}
