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
        var info = new ProcessStartInfo(fileName, args)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
            WorkingDirectory = directory ?? "",
        };
        try
        {
            using var process = Process.Start(info);
            if (process is null)
            {
                return null;
            }
            var stdout = process.StandardOutput.ReadToEndAsync();
            _ = process.StandardError.ReadToEndAsync(); // drained so that a chatty tool cannot block
            if (!process.WaitForExit(Timeout))
            {
                ProcessTree.Kill(process);
                return null;
            }
            string line = stdout.Result.Split('\n')[0].Trim();
            return process.ExitCode == 0 && line.Length > 0 ? line : null;
        }
        catch (Exception e) when (e is System.ComponentModel.Win32Exception or InvalidOperationException or IOException)
        {
            return null; // not installed
        }
    }
}
