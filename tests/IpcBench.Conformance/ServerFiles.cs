using IpcBench.Contract;

namespace IpcBench.Conformance;

/// <summary>
/// The files a server makes, as its address says: the socket file or channel at the path it names (uds, grpc-uds, mmf,
/// dbus's bus) with the private directory it lies in, or on Unix the socket file behind a pipe name (pipe, jsonrpc). A
/// server on a port makes none, and neither does a broker's client (the path in a redis-uds address is the redis-server's
/// socket): what those leave behind is a queue or a subscription, which AmqpTests, NatsTests and RedisTests look for.
/// </summary>
public static class ServerFiles
{
    /// <summary>Whether <paramref name="transport"/>'s server makes files; read from its default address, it asks nothing of the machine.</summary>
    public static bool Makes(ITransport transport) => Of(transport, transport.DefaultAddress()).Count > 0;

    /// <summary>What <paramref name="server"/> made: its file, then the private directory it made for it, if any.</summary>
    public static IReadOnlyList<string> Of(TestServer server) => Of(server.Transport, server.Process.Address);

    /// <summary>
    /// The files the running <paramref name="server"/> made, each asserted to be there: a check that they are gone later
    /// means something only if they were there. For a server that makes none, says so in the test's output.
    /// </summary>
    public static IReadOnlyList<string> AssertMadeBy(TestServer server)
    {
        var files = Of(server);
        Assert.All(files, file => Assert.True(Path.Exists(file), $"{file}, which {server.Transport.Name}'s server should have made, is not there"));
        if (files.Count == 0)
        {
            TestContext.Current.TestOutputHelper?.WriteLine(
                $"{server.Transport.Name}'s server makes no file (it listens on a port, or is a broker's client): no file to look for after it");
        }
        return files;
    }

    public static void AssertGone(IEnumerable<string> files, string whose)
    {
        Assert.All(files, file => Assert.False(Path.Exists(file), $"{file} of {whose} is left behind"));
    }

    private static IReadOnlyList<string> Of(ITransport transport, Uri address)
    {
        if (transport.Capabilities.Has(TransportFeatures.Brokered))
        {
            return [];
        }
        if (address.AbsolutePath.Length > 1)
        {
            string file = Uri.UnescapeDataString(address.AbsolutePath);
            string directory = Path.GetDirectoryName(file)!;
            return Path.GetFileName(directory).StartsWith("ipcbench-", StringComparison.Ordinal) ? [file, directory] : [file];
        }
        // A pipe's address names it, and has no port; on Unix .NET makes it a socket file in the temp directory.
        return address.Port < 0 && address.Host.Length > 0 && !OperatingSystem.IsWindows()
            ? [Path.Combine(Path.GetTempPath(), "CoreFxPipe_" + address.Host)]
            : [];
    }
}
