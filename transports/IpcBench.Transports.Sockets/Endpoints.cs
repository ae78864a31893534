using System.Net;
using System.Net.Sockets;

namespace IpcBench.Transports.Sockets;

/// <summary>Turns IpcBench addresses (<c>tcp://host:port</c>, <c>uds:///path</c>) into socket endpoints.</summary>
internal static class Endpoints
{
    /// <summary>
    /// The IP endpoint of a host:port address. A name is resolved preferring IPv4, because "localhost"
    /// often resolves to ::1 first while servers here listen on 127.0.0.1.
    /// </summary>
    public static async ValueTask<IPEndPoint> ResolveAsync(Uri address, CancellationToken ct)
    {
        if (address.Port < 0)
        {
            throw new ArgumentException($"{address} has no port: write {address.Scheme}://HOST:PORT");
        }
        string host = address.IdnHost;
        if (IPAddress.TryParse(host, out var ip))
        {
            return new IPEndPoint(ip, address.Port);
        }
        var candidates = await Dns.GetHostAddressesAsync(host, ct).ConfigureAwait(false);
        var chosen = candidates.FirstOrDefault(a => a.AddressFamily == AddressFamily.InterNetwork)
            ?? candidates.FirstOrDefault()
            ?? throw new ArgumentException($"host '{host}' did not resolve to any address");
        return new IPEndPoint(chosen, address.Port);
    }

    /// <summary>The socket file path of a <c>uds:///path</c> address.</summary>
    public static string SocketPath(Uri address)
    {
        string path = Uri.UnescapeDataString(address.AbsolutePath);
        if (OperatingSystem.IsWindows() && path.Length > 2 && path[0] == '/' && path[2] == ':')
        {
            path = path[1..]; // uds:///C:/x.sock
        }
        if (path.Length <= 1)
        {
            throw new ArgumentException($"{address} names no socket file: write {address.Scheme}:///path/to/file.sock");
        }
        return path;
    }

    public static Uri ToUri(string scheme, IPEndPoint endpoint) => new UriBuilder(scheme, endpoint.Address.ToString(), endpoint.Port).Uri;

    /// <summary><c>uds:///tmp/x/s.sock</c> for /tmp/x/s.sock (and <c>uds:///C:/x/s.sock</c> on Windows).</summary>
    public static Uri ToUri(string scheme, string socketPath)
    {
        string path = socketPath.Replace('\\', '/');
        return new Uri($"{scheme}://{(path.StartsWith('/') ? "" : "/")}{path}");
    }
}
