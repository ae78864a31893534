using System.Net;
using IpcBench.Kit;
using IpcBench.Contract.Options;
using RabbitMQ.Client;
using RabbitMQ.Client.Exceptions;

namespace IpcBench.Transports.RabbitMQ;

/// <summary>
/// Where the broker is and how to log in. Addresses carry host, port and virtual host, never the
/// password: credentials come from the address's user part if given, else from
/// <c>IPCBENCH_RABBITMQ_URI</c> when the address names that broker, else guest/guest (which RabbitMQ accepts from loopback only).
/// Nothing IpcBench prints or reports contains them.
/// </summary>
internal static class Broker
{
    public const string UriVariable = "IPCBENCH_RABBITMQ_URI";
    private const int DefaultPort = 5672;
    private const string DefaultUri = "amqp://guest:guest@localhost:5672/";

    private static Uri Configured => new(Environment.GetEnvironmentVariable(UriVariable) is { Length: > 0 } v ? v : DefaultUri);

    /// <summary>The configured broker as an IpcBench address of <paramref name="scheme"/>, without credentials.</summary>
    public static Uri DefaultAddress(string scheme)
    {
        var broker = Configured;
        return new Uri($"{scheme}://{broker.Host}:{(broker.Port > 0 ? broker.Port : DefaultPort)}{broker.AbsolutePath}");
    }

    public static ConnectionFactory Factory(Uri address, TimeSpan connectTimeout, string clientName)
    {
        var (user, password) = SplitUserInfo(BrokerLogin.UserInfo(address, Configured, DefaultPort));
        string vhost = Uri.UnescapeDataString(address.AbsolutePath.TrimStart('/'));
        return new ConnectionFactory
        {
            HostName = address.Host == "localhost" ? "127.0.0.1" : address.Host, // the broker may listen on IPv4 only
            Port = address.Port > 0 ? address.Port : DefaultPort,
            VirtualHost = vhost.Length == 0 ? "/" : vhost,
            UserName = user,
            Password = password,
            AutomaticRecoveryEnabled = false, // a lost broker is an error to report, not to hide
            TopologyRecoveryEnabled = false,
            RequestedConnectionTimeout = connectTimeout,
            ClientProvidedName = clientName,
        };
    }

    /// <summary>
    /// Closes a channel and its connection, tolerating a broker that is already gone; returns why
    /// closing failed (null when it did not). <paramref name="beforeClose"/> runs first on an open channel.
    /// </summary>
    public static async Task<string?> CloseAsync(IChannel channel, IConnection connection, Func<IChannel, Task>? beforeClose = null)
    {
        try
        {
            if (beforeClose is not null && channel.IsOpen)
            {
                await beforeClose(channel).ConfigureAwait(false);
            }
            if (channel.IsOpen)
            {
                await channel.CloseAsync().ConfigureAwait(false);
            }
            if (connection.IsOpen)
            {
                await connection.CloseAsync().ConfigureAwait(false);
            }
            return null;
        }
        catch (Exception e) when (e is AlreadyClosedException or OperationCanceledException or IOException)
        {
            return e.Message;
        }
        finally
        {
            await channel.DisposeAsync().ConfigureAwait(false);
            await connection.DisposeAsync().ConfigureAwait(false);
        }
    }

    /// <summary>The address as it may be shown: scheme://host:port/vhost, no credentials, no query.</summary>
    public static Uri Public(Uri address) => new($"{address.Scheme}://{Describe(address)}");

    /// <summary>host:port/vhost, for messages: never the credentials.</summary>
    public static string Describe(Uri address) => $"{address.Host}:{(address.Port > 0 ? address.Port : DefaultPort)}{address.AbsolutePath}";

    private static (string User, string Password) SplitUserInfo(string userInfo)
    {
        string[] parts = userInfo.Split(':', 2);
        return parts.Length == 2 && parts[0].Length > 0
            ? (Uri.UnescapeDataString(parts[0]), Uri.UnescapeDataString(parts[1]))
            : ("guest", "guest");
    }

    /// <summary>Null when something accepts TCP connections at the broker's port (<paramref name="address"/>'s, else the configured one's) within <paramref name="bound"/>; otherwise why not, and how to start one.</summary>
    public static async ValueTask<string?> UnreachableAsync(Uri? address, TimeSpan bound, CancellationToken ct)
    {
        var broker = address ?? Configured;
        string host = broker.Host == "localhost" ? "127.0.0.1" : broker.Host;
        int port = broker.Port > 0 ? broker.Port : DefaultPort;
        var endpoint = IPAddress.TryParse(host, out var ip) ? (EndPoint)new IPEndPoint(ip, port) : new DnsEndPoint(host, port);
        return await BrokerProbe.AnswersAsync(endpoint, bound, ct).ConfigureAwait(false) ? null
            : $"no RabbitMQ broker answers at {host}:{port} (set {UriVariable}, or start one: apt-get install rabbitmq-server && service rabbitmq-server start)";
    }
}
