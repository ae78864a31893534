using System.Net.Sockets;
using IpcBench.Contract;

namespace IpcBench.Kit.Files;

/// <summary>
/// A Unix domain socket file left by a killed server blocks its path ("address in use"): remove it if
/// nothing answers there; refuse clearly if a live server does, or if the path holds anything but a socket
/// (connecting to a regular file is refused just as connecting to a dead socket is).
/// </summary>
public static class StaleSocketFile
{
    /// <summary>
    /// A server's socket path made ready to bind: its private directory (a '*' in <paramref name="path"/>) created,
    /// a stale socket there removed. When that fails, the directory it made is removed again.
    /// </summary>
    public static async ValueTask<SocketPathClaim> ClaimAsync(string path, CancellationToken ct)
    {
        var claim = new SocketPathClaim(PrivateDirectory.Resolve(path, out string? ownDirectory), ownDirectory);
        try
        {
            await RemoveIfStaleAsync(claim.Path, ct).ConfigureAwait(false);
        }
        catch
        {
            claim.GiveUp();
            throw;
        }
        return claim;
    }

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

/// <summary>A socket path a server claimed (<see cref="StaleSocketFile.ClaimAsync"/>), and the private directory made for it (null: none).</summary>
public sealed record SocketPathClaim(string Path, string? OwnDirectory)
{
    /// <summary>Once the server has stopped: removes its socket file and the directory made for it.</summary>
    public void Release()
    {
        PrivateDirectory.TryDeleteFile(Path);
        PrivateDirectory.Remove(OwnDirectory);
    }

    /// <summary>When the server could not bind: removes only the directory made for it (whatever blocked the path is not its own).</summary>
    public void GiveUp() => PrivateDirectory.Remove(OwnDirectory);
}
