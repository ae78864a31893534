using System.Collections.Concurrent;
using IpcBench.Contract;
using IpcBench.Kit;
using IpcBench.Kit.Streams;
using StreamJsonRpc;

namespace IpcBench.Transports.JsonRpc;

/// <summary>
/// Accepts pipe clients and attaches a <see cref="StreamJsonRpc.JsonRpc"/> with the echo target to each,
/// as a StreamJsonRpc server does. A connection ends when its client goes away (JsonRpc's Completion);
/// stopping the server ends them all.
/// </summary>
internal sealed class JsonRpcServer : IServer
{
    private readonly IStreamListener _listener;
    private readonly Func<Stream, IJsonRpcMessageHandler> _handler;
    private readonly EchoTarget _target;
    private readonly CancellationTokenSource _stopping = new();
    private readonly ConcurrentDictionary<StreamJsonRpc.JsonRpc, byte> _connections = new();
    private readonly Task _acceptLoop;

    public JsonRpcServer(IStreamListener listener, Func<Stream, IJsonRpcMessageHandler> handler, EchoTarget target)
    {
        _listener = listener;
        _handler = handler;
        _target = target;
        _acceptLoop = Task.Run(() => AcceptLoop.RunAsync(listener, Attach, _stopping.Token));
    }

    public Uri Address => _listener.Address;

    private void Attach(Stream stream)
    {
        var rpc = new StreamJsonRpc.JsonRpc(_handler(stream), _target);
        _connections[rpc] = 0;
        rpc.StartListening();
        _ = rpc.Completion.ContinueWith(_ =>
        {
            _connections.TryRemove(rpc, out byte _);
            rpc.Dispose(); // disposes the message handler and with it the pipe
        }, TaskScheduler.Default);
    }

    public async ValueTask DisposeAsync()
    {
        if (_stopping.IsCancellationRequested)
        {
            return;
        }
        await _stopping.CancelAsync().ConfigureAwait(false);
        await _listener.DisposeAsync().ConfigureAwait(false);
        foreach (var rpc in _connections.Keys)
        {
            rpc.Dispose();
        }
        await Stopping.WaitAsync(_acceptLoop, $"jsonrpc server {Address}: its accept loop did not stop").ConfigureAwait(false);
    }
}
