using System.Globalization;

namespace IpcBench.Tests;

/// <summary>Processes as /proc shows them to any user of the machine.</summary>
internal static class ProcFs
{
    /// <summary>A process's command line with spaces between its arguments; empty once it is gone (a zombie's is empty too).</summary>
    public static string CommandLine(int pid)
    {
        try
        {
            return File.ReadAllText($"/proc/{pid}/cmdline").Replace('\0', ' ');
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return "";
        }
    }

    /// <summary>Every process's command line.</summary>
    public static IEnumerable<string> CommandLines() =>
        Directory.EnumerateDirectories("/proc").Select(Path.GetFileName)
            .Where(name => name!.All(char.IsAsciiDigit))
            .Select(name => CommandLine(int.Parse(name!, CultureInfo.InvariantCulture)));
}
