using System.Net;
using IpcBench.Kit;
using IpcBench.Contract.Options;
using NATS.Client.Core;

namespace IpcBench.Transports.Nats;

/// <summary>
/// Where the nats-server is and how to log in. Addresses carry host and port, never a password or token: credentials
/// come from the address's user part if given ("user:password@" or "token@"), else from <c>IPCBENCH_NATS_URL</c> when the
/// address names that server, else none (a nats-server started without authorization). Nothing IpcBench prints or reports contains them.
/// </summary>
internal static class NatsBroker
{
    public const string UrlVariable = "IPCBENCH_NATS_URL";
    private const int DefaultPort = 4222;

    private static Uri Configured => new(Environment.GetEnvironmentVariable(UrlVariable) is { Length: > 0 } v ? v : $"nats://127.0.0.1:{DefaultPort}");

    /// <summary>The configured server as an IpcBench address of <paramref name="scheme"/>, without credentials.</summary>
    public static Uri DefaultAddress(string scheme) => new($"{scheme}://{Describe(Configured)}");

    /// <summary>The address as it may be shown: scheme://host:port, no credentials, no query.</summary>
    public static Uri Public(Uri address) => new($"{address.Scheme}://{Describe(address)}");

    /// <summary>host:port, for messages: never the credentials.</summary>
    public static string Describe(Uri address) => $"{Host(address)}:{Port(address)}";

    /// <summary>
    /// A connection's options: one connect attempt within <paramref name="connectTimeout"/>, no reconnecting (a lost
    /// server is an error to report, not to hide), replies awaited <paramref name="requestTimeout"/> at most.
    /// </summary>
    public static NatsOpts Options(Uri address, TimeSpan connectTimeout, TimeSpan requestTimeout, string name)
    {
        string userInfo = BrokerLogin.UserInfo(address, Configured, DefaultPort);
        string[] parts = userInfo.Split(':', 2);
        var auth = userInfo.Length == 0 ? NatsAuthOpts.Default
            : parts.Length == 2 ? NatsAuthOpts.Default with { Username = Uri.UnescapeDataString(parts[0]), Password = Uri.UnescapeDataString(parts[1]) }
            : NatsAuthOpts.Default with { Token = Uri.UnescapeDataString(userInfo) };
        return NatsOpts.Default with
        {
            Url = $"nats://{Describe(address)}",
            Name = name,
            AuthOpts = auth,
            ConnectTimeout = connectTimeout,
            CommandTimeout = connectTimeout,
            RequestTimeout = requestTimeout,
            MaxReconnectRetry = 0,
            RetryOnInitialConnect = false,
        };
    }

    /// <summary>Null when something accepts TCP connections at the server's port (<paramref name="address"/>'s, else the configured one's) within <paramref name="bound"/>; otherwise why not, and how to start one.</summary>
    public static async ValueTask<string?> UnreachableAsync(Uri? address, TimeSpan bound, CancellationToken ct)
    {
        var server = address ?? Configured;
        var endpoint = IPAddress.TryParse(Host(server), out var ip) ? (EndPoint)new IPEndPoint(ip, Port(server)) : new DnsEndPoint(server.Host, Port(server));
        return await BrokerProbe.AnswersAsync(endpoint, bound, ct).ConfigureAwait(false) ? null
            : $"no nats-server answers at {Describe(server)} (set {UrlVariable}, or start one: apt-get install nats-server && nats-server -a 127.0.0.1 &)";
    }

    private static string Host(Uri address) => address.Host == "localhost" ? "127.0.0.1" : address.Host; // it may listen on IPv4 only

    private static int Port(Uri address) => address.Port > 0 ? address.Port : DefaultPort;
}
