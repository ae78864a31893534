using IpcBench.Core;
using IpcBench.Core.Hosting;
using IpcBench.Core.Options;

namespace IpcBench.Benchmarks;

/// <summary>The server one benchmark case measures, started the suite's way.</summary>
public static class SuiteServer
{
    /// <summary>
    /// Pins this process as the suite's placement says (before the server starts, so that nothing
    /// runs unpinned), starts 'ipcbench serve' for <paramref name="entry"/> ("tcp", "mmf?wait=spin")
    /// and returns the transport, the server, the address a client connects to and the namespace the server runs in
    /// (IPCBENCH_ISOLATION=netns or container), to be disposed after the server.
    /// </summary>
    public static async Task<(ITransport Transport, ServerProcess Server, Uri ClientAddress, NetworkNamespace? Namespace)> StartAsync(string entry)
    {
        var transport = SuiteSettings.Resolve(entry);
        var options = SuiteSettings.Options(entry);
        var (clientCpu, serverCpu) = SuiteSettings.Placement.Cpus();
        if (clientCpu is int cpu)
        {
            CpuAffinity.PinCurrentProcess(cpu);
        }
        var space = SuiteSettings.Isolation == Isolation.None ? null : await NetworkNamespace.CreateAsync(SuiteSettings.Isolation);
        try
        {
            var address = transport.DefaultAddress();
            var bind = AddressQuery.With(space?.BindAddress(address) ?? address, options.Given(OptionScope.BothEnds));
            var server = await ServerProcess.StartAsync(transport.Name, bind, serverCpu, line => Console.Error.WriteLine($"[server] {line}"),
                launcher: space is null ? null : space.Wrap);
            return (transport, server, AddressQuery.With(server.Address, options.Given(OptionScope.BothEnds, OptionScope.Client, OptionScope.Limit)), space);
        }
        catch when (space is not null)
        {
            await space.DisposeAsync();
            throw;
        }
    }
}
