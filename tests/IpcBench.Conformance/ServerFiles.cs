using IpcBench.Core.Contract;

namespace IpcBench.Conformance;

/// <summary>
/// The files a server makes, as its address says: the path it names (uds, mmf), or on Unix the socket file behind a
/// pipe name. None for a broker's client: the path in a redis-uds address is the redis-server's socket, not its own.
/// </summary>
public static class ServerFiles
{
    public static IEnumerable<string> Of(TestServer server)
    {
        var address = server.Process.Address;
        return server.Transport.Capabilities.Has(TransportFeatures.Brokered) ? []
            : address.AbsolutePath.Length > 1 ? [Uri.UnescapeDataString(address.AbsolutePath)]
            : OperatingSystem.IsWindows() || address.Host.Length == 0 ? []
            : [Path.Combine(Path.GetTempPath(), "CoreFxPipe_" + address.Host)];
    }
}
