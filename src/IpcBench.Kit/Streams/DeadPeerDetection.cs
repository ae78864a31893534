using System.Net.Sockets;

namespace IpcBench.Kit.Streams;

/// <summary>
/// A TCP server's guard against a client that vanished without a FIN (its machine, container or link gone): nothing
/// would ever end a session blocked in a read, or one whose reply is never acknowledged. Keepalive probes after 30 s of
/// silence, every 5 s, three times, and a 45 s limit on unacknowledged data (TCP_USER_TIMEOUT, Linux) end such a session
/// within about 45 s. A live client that is merely idle answers the probes from its kernel and is not disturbed.
/// </summary>
public static class DeadPeerDetection
{
    public const int IdleSeconds = 30;
    public const int IntervalSeconds = 5;
    public const int Probes = 3;

    private const int TcpUserTimeout = 18; // TCP_USER_TIMEOUT in linux/tcp.h; .NET names no option for it

    public static void Enable(Socket socket)
    {
        socket.SetSocketOption(SocketOptionLevel.Socket, SocketOptionName.KeepAlive, true);
        try
        {
            socket.SetSocketOption(SocketOptionLevel.Tcp, SocketOptionName.TcpKeepAliveTime, IdleSeconds);
            socket.SetSocketOption(SocketOptionLevel.Tcp, SocketOptionName.TcpKeepAliveInterval, IntervalSeconds);
            socket.SetSocketOption(SocketOptionLevel.Tcp, SocketOptionName.TcpKeepAliveRetryCount, Probes);
        }
        catch (SocketException e) when (e.SocketErrorCode == SocketError.ProtocolOption)
        {
            // A system that cannot tune keep-alive (Windows before 10 1703 has no TCP_KEEPCNT, nor has Wine) keeps its
            // own timings: a dead peer is found later, and the connection still serves.
        }
        if (OperatingSystem.IsLinux())
        {
            socket.SetRawSocketOption((int)SocketOptionLevel.Tcp, TcpUserTimeout,
                BitConverter.GetBytes((IdleSeconds + IntervalSeconds * Probes) * 1000));
        }
    }
}
