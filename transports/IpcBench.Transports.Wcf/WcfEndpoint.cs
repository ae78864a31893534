namespace IpcBench.Transports.Wcf;

/// <summary>IpcBench's wcf addresses: <c>wcf://HOST:PORT</c> is the service at net.tcp://HOST:PORT/ipcbench/echo.</summary>
internal static class WcfEndpoint
{
    public static Uri NetTcp(Uri address) =>
        address.Port <= 0 || address.AbsolutePath.Length > 1
            ? throw new ArgumentException($"{address} is not a wcf address: write wcf://HOST:PORT")
            : new Uri($"net.tcp://{address.Authority}{Contract.Path}");
}
