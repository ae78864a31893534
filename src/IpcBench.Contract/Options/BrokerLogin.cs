namespace IpcBench.Contract.Options;

/// <summary>
/// Which credentials a brokered transport logs in with: the address's own user info, else that of the broker URI the
/// user configured (IPCBENCH_RABBITMQ_URI, IPCBENCH_NATS_URL, IPCBENCH_REDIS_URL) but only when the address names that
/// broker. A --server elsewhere gets no configured password: credentials go only where they were configured for.
/// </summary>
public static class BrokerLogin
{
    /// <summary>The user info to log in to <paramref name="address"/> with ("" for none).</summary>
    /// <param name="configured">The configured broker's URI, with its user info.</param>
    /// <param name="defaultPort">The port an address without one means.</param>
    public static string UserInfo(Uri address, Uri configured, int defaultPort) =>
        address.UserInfo.Length > 0 ? address.UserInfo
        : SameEndpoint(address, configured, defaultPort) ? configured.UserInfo
        : "";

    /// <summary>Whether two addresses name the same host and port, whatever their schemes (localhost is 127.0.0.1).</summary>
    public static bool SameEndpoint(Uri a, Uri b, int defaultPort) =>
        string.Equals(Host(a), Host(b), StringComparison.OrdinalIgnoreCase) && Port(a, defaultPort) == Port(b, defaultPort);

    private static string Host(Uri address) => address.Host == "localhost" ? "127.0.0.1" : address.Host;

    private static int Port(Uri address, int defaultPort) => address.Port > 0 ? address.Port : defaultPort;
}
