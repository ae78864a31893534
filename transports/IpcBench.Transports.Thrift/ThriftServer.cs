using IpcBench.Contract;
using IpcBench.Kit;
using Thrift.Processor;
using Thrift.Protocol;
using Thrift.Server;
using Thrift.Transport;

namespace IpcBench.Transports.Thrift;

/// <summary>
/// Thrift's own <see cref="TThreadPoolAsyncServer"/>: it accepts on the server transport and runs each connection's
/// read-process-write loop on the thread pool, the server most Thrift services in .NET run. Stopping it closes the
/// listener and cancels every connection's loop; the <c>keeper</c> (see <see cref="ThriftTransport"/>) goes last.
/// </summary>
internal sealed class ThriftServer : IServer
{
    private readonly TServer _server;
    private readonly CancellationTokenSource _stopping = new();
    private readonly Task _serving;
    private readonly IDisposable? _keeper;

    public ThriftServer(TServerTransport listener, Uri address, ITAsyncProcessor processor, TProtocolFactory protocol, IDisposable? keeper = null)
    {
        Address = address;
        _keeper = keeper;
        _server = new TThreadPoolAsyncServer(processor, listener, new TFramedTransport.Factory(), protocol);
        _serving = Task.Run(() => _server.ServeAsync(_stopping.Token));
    }

    public Uri Address { get; }

    public async ValueTask DisposeAsync()
    {
        if (_stopping.IsCancellationRequested)
        {
            return;
        }
        try
        {
            _server.Stop(); // closes the listener first, so the accept loop makes no new pipe instance as it ends
            await _stopping.CancelAsync().ConfigureAwait(false);
            await Stopping.WaitAsync(_serving, $"thrift server {Address}: its accept loop did not stop").ConfigureAwait(false);
        }
        finally
        {
            _keeper?.Dispose();
        }
    }
}
