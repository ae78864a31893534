using System.Net.Sockets;
using IpcBench.Core.Contract;

namespace IpcBench.Core.Kit.Files;

/// <summary>
/// A Unix domain socket file left by a killed server blocks its path ("address in use"): remove it if
/// nothing answers there; refuse clearly if a live server does, or if the path holds anything but a socket
/// (connecting to a regular file is refused just as connecting to a dead socket is).
/// </summary>
public static class StaleSocketFile
{
    public static async ValueTask RemoveIfStaleAsync(string path, CancellationToken ct)
    {
        if (!PathAddress.HoldsSocket(path))
        {
            return;
        }
        using var probe = new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified);
        try
        {
            await probe.ConnectAsync(new UnixDomainSocketEndPoint(path), ct).ConfigureAwait(false);
        }
        catch (SocketException)
        {
            File.Delete(path); // nobody listens: a leftover of a killed run
            return;
        }
        throw new TransportException($"a server is already listening on {path}");
    }
}
