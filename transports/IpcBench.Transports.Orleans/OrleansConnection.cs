using IpcBench.Contract;
using Orleans.Concurrency;
using Orleans.Runtime;

namespace IpcBench.Transports.Orleans;

/// <summary>
/// A grain of its own (a fresh key per connection, so that a load run's clients are not queued behind one grain), called
/// through the generated proxy: each request is <c>Echo(Immutable&lt;byte[]&gt;)</c>, the request copied into an array of
/// its own and the reply arriving as one. Calls may overlap; the grain takes them one at a time, as a grain does.
/// </summary>
internal sealed class OrleansConnection(ClusterClient cluster, IEchoGrain grain, string peer, TimeSpan timeout) : IConnection
{
    private int _disposed;

    public async ValueTask<int> RequestAsync(ReadOnlyMemory<byte> request, Memory<byte> reply, CancellationToken ct = default)
    {
        FrameTooLargeException.ThrowIfTooLarge(request.Length, OrleansTransport.MaxPayload);
        byte[] answer;
        try
        {
            cluster.Lost.ThrowIfCancellationRequested();
            // Orleans fails a call to a dead silo only at its response timeout: losing the gateway ends the wait sooner.
            var call = grain.Echo(request.ToArray().AsImmutable());
            answer = (await (call.IsCompleted ? call : call.WaitAsync(cluster.Lost)).ConfigureAwait(false)).Value;
        }
        catch (TimeoutException)
        {
            throw TransportErrors.NoReply(peer, timeout);
        }
        catch (OperationCanceledException) when (cluster.Lost.IsCancellationRequested)
        {
            throw new TransportException($"connection to {peer} lost: the Orleans client has no gateway left");
        }
        catch (Exception e) when (e is OrleansException or ObjectDisposedException)
        {
            throw new TransportException($"connection to {peer} lost: {e.Message}", e);
        }
        return FrameTooLargeException.CopyReply(answer, reply.Span);
    }

    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) == 0)
        {
            await cluster.ReleaseAsync().ConfigureAwait(false);
        }
    }
}
