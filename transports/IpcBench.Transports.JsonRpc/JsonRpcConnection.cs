using IpcBench.Contract;
using StreamJsonRpc;

namespace IpcBench.Transports.JsonRpc;

/// <summary>
/// One JsonRpc on one pipe, kept: each request is <c>InvokeWithCancellationAsync&lt;byte[]&gt;("Echo", payload)</c>.
/// Arguments travel as objects, so the request is copied into a fresh array and the reply arrives as
/// one: these allocations are StreamJsonRpc's, and the benchmark reports them. A request that times out
/// is cancelled (StreamJsonRpc tells the server) and the connection stays usable: replies match by id.
/// </summary>
internal sealed class JsonRpcConnection(StreamJsonRpc.JsonRpc rpc, string peer, int maxMessage, TimeSpan timeout) : IConnection
{
    public async ValueTask<int> RequestAsync(ReadOnlyMemory<byte> request, Memory<byte> reply, CancellationToken ct = default)
    {
        FrameTooLargeException.ThrowIfTooLarge(request.Length, maxMessage);
        using var cancel = CancellationTokenSource.CreateLinkedTokenSource(ct);
        var call = rpc.InvokeWithCancellationAsync<byte[]>(EchoTarget.Method, [request.ToArray()], cancel.Token);
        byte[] answer;
        try
        {
            // A cancelled invocation still waits for the server to answer (it is asked to stop, not abandoned),
            // so a server that is stuck needs a deadline of the client's own.
            answer = await call.WaitAsync(timeout, ct).ConfigureAwait(false);
        }
        catch (TimeoutException)
        {
            await cancel.CancelAsync().ConfigureAwait(false); // StreamJsonRpc tells the server; a late answer matches no request
            _ = call.ContinueWith(static t => t.Exception, TaskContinuationOptions.OnlyOnFaulted | TaskContinuationOptions.ExecuteSynchronously);
            throw TransportErrors.NoReply(peer, timeout);
        }
        catch (RemoteInvocationException e)
        {
            throw new TransportException($"{peer} refused the call: {e.Message}", e);
        }
        catch (Exception e) when (e is ConnectionLostException or ObjectDisposedException or IOException)
        {
            throw new TransportException($"connection to {peer} lost: {e.Message}", e);
        }
        return FrameTooLargeException.CopyReply(answer, reply.Span);
    }

    public ValueTask DisposeAsync()
    {
        rpc.Dispose();
        return ValueTask.CompletedTask;
    }
}
