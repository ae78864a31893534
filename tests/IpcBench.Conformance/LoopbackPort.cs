using System.Net;
using System.Net.Sockets;

namespace IpcBench.Conformance;

/// <summary>A loopback TCP port nothing listens on now, for a scratch server of a test's own.</summary>
public static class LoopbackPort
{
    public static int Free()
    {
        using var probe = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        probe.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        return ((IPEndPoint)probe.LocalEndPoint!).Port;
    }
}
