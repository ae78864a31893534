using System.Net;
using System.Net.Sockets;

namespace IpcBench.Kit;

/// <summary>Turns <c>SCHEME://host:port</c> addresses (tcp, udp, thrift, akka) into socket endpoints.</summary>
public static class Endpoints
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

    public static Uri ToUri(string scheme, IPEndPoint endpoint) => new UriBuilder(scheme, endpoint.Address.ToString(), endpoint.Port).Uri;
}
