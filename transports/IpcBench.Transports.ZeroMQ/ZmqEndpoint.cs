namespace IpcBench.Transports.ZeroMQ;

/// <summary>
/// IpcBench's ZeroMQ addresses, for both engines: <c>zmq://127.0.0.1:5555</c> (or <c>zmq-libzmq://...</c>)
/// is the ZeroMQ endpoint <c>tcp://127.0.0.1:5555</c>.
/// </summary>
internal static class ZmqEndpoint
{
    /// <summary>The address as a ZeroMQ TCP endpoint; a server's port 0 binds a free port ('*').</summary>
    public static string Tcp(Uri address, bool bind)
    {
        if (address.Port < 0 || address.AbsolutePath.Length > 1)
        {
            throw new ArgumentException($"{address} is not a ZeroMQ address: write {address.Scheme}://HOST:PORT");
        }
        string host = address.HostNameType == UriHostNameType.IPv6 ? $"[{address.IdnHost}]" : address.IdnHost;
        if (!bind && host == "localhost")
        {
            host = "127.0.0.1"; // servers bind 127.0.0.1; "localhost" may resolve to ::1 first
        }
        return $"tcp://{host}:{(bind && address.Port == 0 ? "*" : address.Port)}";
    }

    /// <summary>The address clients use, from the endpoint a server reports as bound ("tcp://127.0.0.1:41235").</summary>
    public static Uri Bound(string scheme, string lastEndpoint) => new($"{scheme}://{lastEndpoint["tcp://".Length..]}");
}
