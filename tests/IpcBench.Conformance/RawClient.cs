using System.Net;
using System.Net.Sockets;

namespace IpcBench.Conformance;

/// <summary>
/// A bare socket to a server's address, below IpcBench's own client code, for sending what a
/// well-behaved client never would.
/// </summary>
public static class RawClient
{
    public static async Task<Socket> ConnectAsync(Uri address)
    {
        var (socket, endpoint) = address.Scheme switch
        {
            "tcp" or "tcp-nagle" or "tcp-tls" => (new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp),
                (EndPoint)new IPEndPoint(IPAddress.Parse(address.Host), address.Port)),
            "udp" => (new Socket(AddressFamily.InterNetwork, SocketType.Dgram, ProtocolType.Udp),
                new IPEndPoint(IPAddress.Parse(address.Host), address.Port)),
            "uds" => (new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified),
                new UnixDomainSocketEndPoint(Uri.UnescapeDataString(address.AbsolutePath))),
            // On Unix a .NET named pipe is a Unix domain socket under the temp directory.
            "pipe" or "jsonrpc" or "jsonrpc-json" when !OperatingSystem.IsWindows() => (new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified),
                new UnixDomainSocketEndPoint(Path.Combine(Path.GetTempPath(), "CoreFxPipe_" + address.Host))),
            _ => throw new NotSupportedException($"RawClient does not know how to reach {address.Scheme}: add it here"),
        };
        await socket.ConnectAsync(endpoint);
        return socket;
    }

    /// <summary>Reads until the peer closes; returns what it sent first (or throws if it keeps the connection open).</summary>
    public static async Task<int> ReadUntilClosedAsync(Socket socket, TimeSpan timeout)
    {
        using var cts = new CancellationTokenSource(timeout);
        byte[] buffer = new byte[1024];
        int total = 0;
        try
        {
            int n;
            while ((n = await socket.ReceiveAsync(buffer, SocketFlags.None, cts.Token)) > 0)
            {
                total += n;
            }
        }
        catch (SocketException e) when (e.SocketErrorCode == SocketError.ConnectionReset)
        {
        }
        return total;
    }
}
