using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Harness;
using IpcBench.Harness.Hosting;

namespace IpcBench.Benchmarks;

/// <summary>The server one benchmark case measures, started the suite's way.</summary>
public static class SuiteServer
{
    /// <summary>
    /// Pins this process as the suite's placement says (before the server starts, so that nothing
    /// runs unpinned), starts 'ipcbench serve' for <paramref name="entry"/> ("tcp", "mmf?wait=spin"), in the suite's
    /// isolation, and returns the transport, the server and the address a client connects to.
    /// </summary>
    /// <param name="replySize">Replies of this size instead of echoes.</param>
    public static async Task<(ITransport Transport, LocalServer Server, Uri ClientAddress)> StartAsync(string entry, int? replySize = null)
    {
        Secrets.RedactConsole(); // this is the benchmark child's first IpcBench code: what it prints reaches the run's log
        var transport = SuiteSettings.Resolve(entry);
        var options = SuiteSettings.Options(entry);
        var (clientCpu, serverCpu) = SuiteSettings.Placement.Cpus();
        if (clientCpu is int cpu)
        {
            CpuAffinity.PinCurrentProcess(cpu);
        }
        var server = await LocalServer.StartAsync(transport, SuiteSettings.Isolation, options.Given(OptionScope.BothEnds), serverCpu,
            line => Console.Error.WriteLine($"[server] {line}"), replySize: replySize);
        return (transport, server, AddressQuery.With(server.Address, options.Given(OptionScope.BothEnds, OptionScope.Client, OptionScope.Limit)));
    }
}
