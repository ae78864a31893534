using System.Diagnostics;
using IpcBench.Kit.Processes;

namespace IpcBench.Reporting.Collecting;

/// <summary>Runs a small command (git, uname) for its first line of output; null if it is not there or fails.</summary>
internal static class Tool
{
    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(5);

    /// <param name="directory">The working directory (null: the current one).</param>
    public static string? Output(string? directory, string fileName, params string[] args)
    {
        try
        {
            var info = new ProcessStartInfo(fileName, args) { WorkingDirectory = directory ?? "" };
            var ended = BoundedChild.RunAsync(info, fileName, Timeout, CancellationToken.None).GetAwaiter().GetResult();
            string line = ended.Stdout.Split('\n')[0].Trim();
            return ended.ExitCode == 0 && line.Length > 0 ? line : null;
        }
        catch (Exception e) when (e is System.ComponentModel.Win32Exception or InvalidOperationException or IOException or TimeoutException)
        {
            return null; // not installed, or it hung
        }
    }
}
