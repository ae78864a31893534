using System.Net;
using System.Net.Sockets;
using Akka.Actor;

namespace IpcBench.Transports.Akka;

/// <summary>
/// The one ActorSystem a client process runs, as Akka's users run one per process: made by the first connection, shared
/// by every connection open at once (a load run's clients), terminated when the last one closes. Starting one costs
/// half a second or more, which a connection's first request does not pay twice. It binds the address this host reaches
/// the server from (loopback for a server on loopback), so that a server on another host can answer it there.
/// </summary>
internal static class ClientSystem
{
    private static readonly Lock Gate = new();
    private static ActorSystem? _system;
    private static int _users;

    /// <param name="server">The server the first connection goes to; a process's connections all go to one.</param>
    public static ActorSystem Acquire(IPEndPoint server)
    {
        lock (Gate)
        {
            _system ??= ActorSystem.Create("ipcbench-client", AkkaSettings.Remote(LocalAddressFor(server).ToString(), 0));
            _users++;
            return _system;
        }
    }

    /// <summary>The address the kernel would send to <paramref name="server"/> from: a datagram socket's connect picks the route, and sends nothing.</summary>
    private static IPAddress LocalAddressFor(IPEndPoint server)
    {
        using var probe = new Socket(server.AddressFamily, SocketType.Dgram, ProtocolType.Udp);
        probe.Connect(server);
        return ((IPEndPoint)probe.LocalEndPoint!).Address;
    }

    public static Task ReleaseAsync()
    {
        ActorSystem? ending = null;
        lock (Gate)
        {
            if (--_users == 0)
            {
                (ending, _system) = (_system, null);
            }
        }
        return ending?.Terminate() ?? Task.CompletedTask;
    }
}
