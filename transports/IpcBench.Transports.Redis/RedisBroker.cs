using System.Net;
using System.Net.Sockets;
using IpcBench.Contract.Options;
using IpcBench.Kit;
using IpcBench.Kit.Files;
using StackExchange.Redis;

namespace IpcBench.Transports.Redis;

/// <summary>
/// Where the redis-server is and how to log in. Addresses carry the endpoint (host and port, or the socket file's
/// path), never a password: credentials come from the address's user part if given ("user:password@", ":password@" or
/// "password@"), else from <c>IPCBENCH_REDIS_URL</c>'s when the address names that server (its host and port, or the
/// configured socket), else none (a redis-server without requirepass or ACL users).
/// Nothing IpcBench prints or reports contains them.
/// </summary>
internal static class RedisBroker
{
    public const string UrlVariable = "IPCBENCH_REDIS_URL";
    public const string SocketVariable = "IPCBENCH_REDIS_SOCKET";
    private const int DefaultPort = 6379;

    /// <summary>Where Debian's redis.conf suggests the Unix socket (its <c>unixsocket</c> line, commented out by default).</summary>
    private const string DefaultSocket = "/run/redis/redis-server.sock";

    private static Uri ConfiguredUrl => new(Environment.GetEnvironmentVariable(UrlVariable) is { Length: > 0 } v ? v : $"redis://127.0.0.1:{DefaultPort}");

    private static string ConfiguredSocket => Environment.GetEnvironmentVariable(SocketVariable) is { Length: > 0 } v ? v : DefaultSocket;

    /// <summary>The configured server as an IpcBench address of <paramref name="scheme"/>, without credentials.</summary>
    public static Uri DefaultAddress(string scheme, bool unixSocket) =>
        unixSocket ? PathAddress.ToUri(scheme, ConfiguredSocket) : new Uri($"{scheme}://{Describe(ConfiguredUrl, false)}");

    /// <summary>The address as it may be shown: scheme and endpoint, no credentials, no query.</summary>
    public static Uri Public(Uri address, bool unixSocket) =>
        unixSocket ? PathAddress.ToUri(address.Scheme, SocketPath(address)) : new Uri($"{address.Scheme}://{Describe(address, false)}");

    /// <summary>host:port or the socket's path, for messages: never the credentials.</summary>
    public static string Describe(Uri address, bool unixSocket) =>
        unixSocket ? SocketPath(address) : $"{Host(address)}:{(address.Port > 0 ? address.Port : DefaultPort)}";

    /// <summary>
    /// A multiplexer's options: one connect attempt within <paramref name="connectTimeout"/> that throws when it fails,
    /// and no command awaited longer than <paramref name="requestTimeout"/>. Commands keep the library's default backlog:
    /// its connect may return before its subscription connection is up, and a SUBSCRIBE sent then waits for it rather
    /// than failing. A lost server is still an error at once: the requester fails on the library's ConnectionFailed.
    /// </summary>
    public static ConfigurationOptions Options(Uri address, bool unixSocket, TimeSpan connectTimeout, TimeSpan requestTimeout, string name)
    {
        var options = new ConfigurationOptions
        {
            ClientName = name,
            AbortOnConnectFail = true,
            ConnectRetry = 1,
            ConnectTimeout = Milliseconds(connectTimeout),
            SyncTimeout = Milliseconds(requestTimeout),
            // The library's own bound on a command. Connecting subscribes, which waits for the library's subscription
            // connection: connecting's time, not a request's (1 s was too short beside a busy test run). Each request
            // keeps its own deadline (RedisRequester).
            AsyncTimeout = Milliseconds(connectTimeout > requestTimeout ? connectTimeout : requestTimeout),
        };
        options.EndPoints.Add(Endpoint(address, unixSocket));
        // The configured password goes to the configured server only: its socket, or its host and port.
        string userInfo = address.UserInfo.Length > 0 ? address.UserInfo
            : unixSocket ? (SocketPath(address) == ConfiguredSocket ? ConfiguredUrl.UserInfo : "")
            : BrokerLogin.UserInfo(address, ConfiguredUrl, DefaultPort);
        if (userInfo.Length > 0)
        {
            string[] parts = userInfo.Split(':', 2);
            (options.User, options.Password) = parts.Length == 2
                ? (parts[0].Length > 0 ? Uri.UnescapeDataString(parts[0]) : null, Uri.UnescapeDataString(parts[1]))
                : (null, Uri.UnescapeDataString(userInfo));
        }
        return options;
    }

    /// <summary>
    /// Null when the redis-server <paramref name="address"/> names (null: the configured one) accepts connections within
    /// <paramref name="bound"/>; otherwise why not, and how to start one.
    /// </summary>
    public static async ValueTask<string?> UnreachableAsync(bool unixSocket, Uri? address, TimeSpan bound, CancellationToken ct)
    {
        EndPoint endpoint;
        string server;
        try
        {
            server = address is not null ? Describe(address, unixSocket) : unixSocket ? ConfiguredSocket : Describe(ConfiguredUrl, false);
            endpoint = Endpoint(address ?? DefaultAddress("redis", unixSocket), unixSocket);
        }
        catch (Exception e) when (e is UriFormatException or ArgumentException)
        {
            // Named, not quoted: the variable may hold a password.
            return $"{(address is not null ? "the address" : unixSocket ? SocketVariable : UrlVariable)} is not a usable redis-server address: {e.GetType().Name}";
        }
        if (await BrokerProbe.AnswersAsync(endpoint, bound, ct).ConfigureAwait(false))
        {
            return null;
        }
        string where = $"at {server} (set {(unixSocket ? SocketVariable : UrlVariable)}";
        return $"no redis-server answers {where}, or start one: apt-get install redis-server && " +
               $"redis-server --bind 127.0.0.1 --unixsocket {DefaultSocket} --unixsocketperm 700 --save '' --daemonize yes)";
    }

    private static EndPoint Endpoint(Uri address, bool unixSocket)
    {
        if (unixSocket)
        {
            return new UnixDomainSocketEndPoint(SocketPath(address));
        }
        int port = address.Port > 0 ? address.Port : DefaultPort;
        return IPAddress.TryParse(Host(address), out var ip) ? new IPEndPoint(ip, port) : new DnsEndPoint(address.Host, port);
    }

    private static string SocketPath(Uri address) => PathAddress.ToPath(address);

    // redis-server binds IPv4 loopback by default: "localhost" could resolve to ::1 first.
    private static string Host(Uri address) => address.Host == "localhost" ? "127.0.0.1" : address.Host;

    private static int Milliseconds(TimeSpan wait) => (int)Math.Min(int.MaxValue, Math.Ceiling(wait.TotalMilliseconds));
}
