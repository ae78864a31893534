using IpcBench.Cli;
using IpcBench.Core;
using IpcBench.Core.Hosting;

namespace IpcBench.Conformance;

/// <summary>An 'ipcbench serve' process for one test, and a way to talk to it.</summary>
public sealed class TestServer : IAsyncDisposable
{
    private TestServer(ITransport transport, ServerProcess process, IoMode io)
    {
        Transport = transport;
        Process = process;
        Io = io;
    }

    public ITransport Transport { get; }
    public ServerProcess Process { get; }
    public IoMode Io { get; }

    public static async Task<TestServer> StartAsync(string transportName, IoMode io = IoMode.Sync, Uri? address = null)
    {
        var transport = TransportRegistry.Get(transportName);
        var bind = EndpointOptions.With(address ?? transport.DefaultAddress(), "io", io.ToString().ToLowerInvariant());
        var process = await ServerProcess.StartAsync(transport.Name, bind);
        return new TestServer(transport, process, io);
    }

    /// <summary>The server's address with the client options of this test (and a short reply timeout, so that nothing waits long).</summary>
    public Uri ClientAddress(string timeout = "5s") =>
        EndpointOptions.With(EndpointOptions.With(Process.Address, "io", Io.ToString().ToLowerInvariant()), "timeout", timeout);

    public async Task<IConnection> ConnectAsync(string timeout = "5s") => await Transport.ConnectAsync(ClientAddress(timeout));

    public ValueTask DisposeAsync() => Process.DisposeAsync();
}
