namespace IpcBench.Conformance;

/// <summary>The files a server makes, as its address says: the path it names (uds, mmf), or on Unix the socket file behind a pipe name.</summary>
public static class ServerFiles
{
    public static IEnumerable<string> Of(Uri address) =>
        address.AbsolutePath.Length > 1 ? [Uri.UnescapeDataString(address.AbsolutePath)]
        : OperatingSystem.IsWindows() || address.Host.Length == 0 ? []
        : [Path.Combine(Path.GetTempPath(), "CoreFxPipe_" + address.Host)];
}
