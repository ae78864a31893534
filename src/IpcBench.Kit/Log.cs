namespace IpcBench.Kit;

/// <summary>
/// Diagnostics go to stderr: a server's stdout carries only its READY line, and a client's only its results.
/// </summary>
public static class Log
{
    public static void Warn(string message) => Console.Error.WriteLine($"ipcbench: {message}");
}
