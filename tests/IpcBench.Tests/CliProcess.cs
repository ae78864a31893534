using System.Diagnostics;
using IpcBench.Harness.Hosting;
using IpcBench.Kit.Files;

namespace IpcBench.Tests;

/// <summary>
/// An ipcbench process that a test starts and watches (stdin, stdout and stderr redirected), killed on dispose if it
/// still runs, so that a failed assertion never leaves a long ping running beside later tests; what a killed server
/// made (its private directory) is removed then, as whoever kills a server does. The process alone: what it started
/// watches it and goes with it (its servers, a namespace's janitor), which some tests check.
/// </summary>
internal sealed class CliProcess : IDisposable
{
    private CliProcess(Process process) => Process = process;

    public Process Process { get; }

    public static CliProcess Start(params string[] args)
    {
        var info = ServerCommand.Resolve().StartInfo(args);
        info.RedirectStandardOutput = info.RedirectStandardError = info.RedirectStandardInput = true;
        return new(Process.Start(info) ?? throw new InvalidOperationException($"could not start ipcbench {string.Join(' ', args)}"));
    }

    public void Dispose()
    {
        try
        {
            if (!Process.HasExited)
            {
                Process.Kill();
                Process.WaitForExit(10_000);
                PrivateDirectory.RemoveLeftBy(Process.Id); // a bare 'serve' killed last in a run has no later server to sweep it
            }
        }
        catch (InvalidOperationException)
        {
            // It exited meanwhile.
        }
        Process.Dispose();
    }
}
