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
    /// and returns the transport, the server and the address a client connects to.
    /// </summary>
    public static async Task<(ITransport Transport, ServerProcess Server, Uri ClientAddress)> StartAsync(string entry)
    {
        var transport = SuiteSettings.Resolve(entry);
        var (clientCpu, serverCpu) = SuiteSettings.Placement.Cpus();
        if (clientCpu is int cpu)
        {
            CpuAffinity.PinCurrentProcess(cpu);
        }
        var bind = SuiteSettings.WithOptions(transport.DefaultAddress(), entry, OptionScope.BothEnds);
        var server = await ServerProcess.StartAsync(transport.Name, bind, serverCpu, line => Console.Error.WriteLine($"[server] {line}"));
        return (transport, server, SuiteSettings.WithOptions(server.Address, entry, OptionScope.BothEnds, OptionScope.Client, OptionScope.Limit));
    }
}
