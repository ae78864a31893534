using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Harness.Hosting;
using IpcBench.Kit.Processes;
using IpcBench.Transports;

namespace IpcBench.Conformance;

/// <summary>An 'ipcbench serve' process for one test, and a way to talk to it with the same options.</summary>
public sealed class TestServer : IAsyncDisposable
{
    private readonly string _variant;

    private TestServer(ITransport transport, ServerProcess process, string variant)
    {
        Transport = transport;
        Process = process;
        _variant = variant;
    }

    public ITransport Transport { get; }
    public ServerProcess Process { get; }

    /// <summary>Starts the server; skips the test, saying why, where <paramref name="transportName"/> does not run here.</summary>
    /// <param name="variant">Address options for both ends, e.g. "io=async" or "wait=spin" (see <see cref="ITransport.Variants"/>).</param>
    /// <param name="replySize">Replies of this size instead of echoes (<c>serve --reply-size</c>).</param>
    public static async Task<TestServer> StartAsync(string transportName, string variant = "", Uri? address = null, int? replySize = null)
    {
        await RunsHere.RequireAsync(transportName);
        var transport = TransportRegistry.Get(transportName);
        var process = await new ServeRequest(transport.Name) { Address = WithVariant(address ?? transport.DefaultAddress(), variant), ReplySize = replySize }.StartAsync(ct: TestContext.Current.CancellationToken);
        return new TestServer(transport, process, variant);
    }

    /// <summary>The server's address with this test's options, and a short reply timeout so that nothing waits long.</summary>
    public Uri ClientAddress(string timeout = "5s") => AddressQuery.With(WithVariant(Process.Address, _variant), "timeout", timeout);

    public async Task<IConnection> ConnectAsync(string timeout = "5s") => await Transport.ConnectAsync(ClientAddress(timeout));

    /// <summary>
    /// A connection for the next client. A server that serves one client at a time (Mono's WCF host) takes it only once it
    /// has seen its previous client's connection end, which on a loaded machine can take longer than one connect's timeout.
    /// </summary>
    public async Task<IConnection> ConnectOnceFreeAsync()
    {
        var deadline = DateTime.UtcNow + TimeSpan.FromSeconds(20);
        while (true)
        {
            try
            {
                return await ConnectAsync();
            }
            catch (TransportTimeoutException) when (Transport.Capabilities.OneClientAtATime is not null && DateTime.UtcNow < deadline)
            {
            }
        }
    }

    private static Uri WithVariant(Uri address, string variant) => AddressQuery.With(address, AddressQuery.Parse(variant));

    public ValueTask DisposeAsync() => Process.DisposeAsync();
}
