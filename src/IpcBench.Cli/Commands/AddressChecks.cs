using IpcBench.Core;

namespace IpcBench.Cli.Commands;

/// <summary>The address options a command passes on, checked now, as the transport will check them, so that a mistake is a usage error (exit 2).</summary>
internal static class AddressChecks
{
    public static Uri Validate(ITransport transport, Uri address)
    {
        try
        {
            Check(transport, EndpointOptions.Query(address));
            return address;
        }
        catch (ArgumentException e)
        {
            throw new UsageException(e.Message);
        }
    }

    private static void Check(ITransport transport, IReadOnlyDictionary<string, string> query)
    {
        if (query.TryGetValue("io", out string? io))
        {
            EndpointOptions.ParseIo(io);
            if (!EndpointOptions.HasIoModes(transport))
            {
                throw new ArgumentException($"--io applies to the socket and pipe transports, not {transport.Name}, which waits its own way (see 'ipcbench list')");
            }
        }
        if (query.TryGetValue("timeout", out string? t)) EndpointOptions.ParseDuration("--timeout", t);
        if (query.ContainsKey("wait") && !transport.Variants.Any(v => v.StartsWith("wait=", StringComparison.Ordinal)))
        {
            throw new ArgumentException($"--wait applies to transports with wait strategies (mmf), not {transport.Name}");
        }
    }
}
