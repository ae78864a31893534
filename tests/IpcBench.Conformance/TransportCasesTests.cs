using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Transports;

namespace IpcBench.Conformance;

/// <summary>
/// The conformance cases are the registry's, whatever runs on the machine that discovers them: a transport left out while
/// tests are discovered is tested nowhere and reported nowhere, where one that cannot run is skipped and says why.
/// </summary>
public class TransportCasesTests
{
    private static readonly ITransport[] WithAServer = [.. TransportRegistry.All.Where(t => !t.Capabilities.Has(TransportFeatures.InProcess))];

    [Fact]
    public void Every_transport_with_a_server_process_has_its_cases_whether_or_not_it_runs_here()
    {
        Assert.SkipWhen(TransportCases.Narrowed is not null, $"the cases are narrowed to {TransportCases.Narrowed} (IPCBENCH_CONFORMANCE_TRANSPORTS)");
        Assert.Equal(WithAServer.Select(t => t.Name), TransportCases.All.Select(row => row.Data));
        Assert.Equal(WithAServer.Sum(t => Math.Max(1, t.Variants().Count)), TransportCases.AllVariants.Count);
    }
}
