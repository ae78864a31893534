using System.IO.Pipes;
using IpcBench.Contract;
using IpcBench.Kit.Files;

namespace IpcBench.Transports.Pipes;

/// <summary>
/// On Unix a pipe is a socket file that a killed server leaves behind, and that then blocks the
/// name: remove it if no server answers, refuse clearly if one does.
/// </summary>
internal static class StalePipe
{
    /// <summary>The socket file behind a pipe name on Unix (as .NET names it), or null on Windows.</summary>
    public static string? SocketPath(string name) =>
        OperatingSystem.IsWindows() ? null : Path.IsPathRooted(name) ? name : Path.Combine(Path.GetTempPath(), "CoreFxPipe_" + name);

    /// <summary>Removes the socket files of generated pipe names whose server process is gone.</summary>
    public static void RemoveLeftovers()
    {
        if (SocketPath("ipcbench-*") is { } pattern)
        {
            PrivateDirectory.RemoveStale(pattern);
        }
    }

    public static async ValueTask RemoveIfStaleAsync(string name, CancellationToken ct)
    {
        if (SocketPath(name) is not { } path || !PathAddress.HoldsSocket(path))
        {
            return;
        }
        using var probe = new NamedPipeClientStream(".", name, PipeDirection.InOut, PipeOptions.Asynchronous);
        try
        {
            await probe.ConnectAsync(200, ct).ConfigureAwait(false);
        }
        catch (Exception e) when (e is TimeoutException or IOException)
        {
            File.Delete(path); // nobody listens: a leftover of a killed server
            return;
        }
        throw new TransportException($"a server is already listening on pipe {name}");
    }
}
