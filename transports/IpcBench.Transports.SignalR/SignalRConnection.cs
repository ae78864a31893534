using IpcBench.Contract;
using Microsoft.AspNetCore.SignalR;
using Microsoft.AspNetCore.SignalR.Client;

namespace IpcBench.Transports.SignalR;

/// <summary>
/// One HubConnection, started once and reused: each request is <c>InvokeAsync&lt;byte[]&gt;("Echo", payload)</c>.
/// SignalR takes its arguments as objects, so the request is copied into a fresh array and the reply
/// arrives as one: these allocations are SignalR's, and the benchmark reports them.
/// </summary>
internal sealed class SignalRConnection(HubConnection hub, string peer, int maxMessage, TimeSpan timeout) : IConnection
{

    /// <summary>Starts <paramref name="hub"/> (its WebSocket and SignalR's handshake) within <paramref name="connectTimeout"/>.</summary>
    public static async Task<SignalRConnection> ConnectAsync(HubConnection hub, Uri peer, int maxMessage,
        TimeSpan connectTimeout, TimeSpan timeout, CancellationToken ct)
    {
        hub.HandshakeTimeout = connectTimeout;

        using var deadline = CancellationTokenSource.CreateLinkedTokenSource(ct);
        deadline.CancelAfter(connectTimeout);
        try
        {
            await hub.StartAsync(deadline.Token).ConfigureAwait(false);
        }
        catch (Exception e) when (!ct.IsCancellationRequested)
        {
            await hub.DisposeAsync().ConfigureAwait(false);
            throw TransportErrors.ConnectFailed(e, peer, connectTimeout);
        }
        return new SignalRConnection(hub, peer.ToString(), maxMessage, timeout);
    }

    public async ValueTask<int> RequestAsync(ReadOnlyMemory<byte> request, Memory<byte> reply, CancellationToken ct = default)
    {
        FrameTooLargeException.ThrowIfTooLarge(request.Length, maxMessage);
        using var deadline = CancellationTokenSource.CreateLinkedTokenSource(ct);
        deadline.CancelAfter(timeout);
        byte[] answer;
        try
        {
            answer = await hub.InvokeAsync<byte[]>(EchoHub.Method, request.ToArray(), deadline.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (deadline.IsCancellationRequested && !ct.IsCancellationRequested)
        {
            throw TransportErrors.NoReply(peer, timeout);
        }
        catch (HubException e)
        {
            throw new TransportException($"{peer} refused the call: {e.Message}", e);
        }
        catch (Exception e) when (!ct.IsCancellationRequested && e is not TransportException)
        {
            // A closed connection fails pending and new invocations (OperationCanceledException, InvalidOperationException, IOException).
            throw new TransportException($"connection to {peer} lost: {e.Message}", e);
        }
        return FrameTooLargeException.CopyReply(answer, reply.Span);
    }

    public ValueTask DisposeAsync() => hub.DisposeAsync();
}
