using Akka.Actor;
using IpcBench.Contract;

namespace IpcBench.Transports.Akka;

/// <summary>
/// The server's echo actor, resolved once: each request is an <c>Ask&lt;byte[]&gt;</c>, as Akka's users call an actor from
/// outside one (a temporary actor per request for its reply, a scheduled timeout). The request travels as an array of
/// its own and the reply arrives as one. Several Asks may be outstanding at once: each has its own reply actor.
/// </summary>
internal sealed class AkkaConnection(ServerLink link, TimeSpan timeout) : IConnection
{
    public async ValueTask<int> RequestAsync(ReadOnlyMemory<byte> request, Memory<byte> reply, CancellationToken ct = default)
    {
        FrameTooLargeException.ThrowIfTooLarge(request.Length, AkkaTransport.MaxPayload);
        using var linked = ct.CanBeCanceled ? CancellationTokenSource.CreateLinkedTokenSource(ct, link.Lost) : null;
        byte[] answer;
        try
        {
            link.Lost.ThrowIfCancellationRequested();
            answer = await link.Echo.Ask<byte[]>(request.ToArray(), timeout, linked?.Token ?? link.Lost).ConfigureAwait(false);
        }
        catch (AskTimeoutException)
        {
            throw TransportErrors.NoReply(link.Peer, timeout);
        }
        catch (OperationCanceledException) when (link.Lost.IsCancellationRequested && !ct.IsCancellationRequested)
        {
            throw new TransportException($"connection to {link.Peer} lost: Akka reports the association gone");
        }
        return FrameTooLargeException.CopyReply(answer, reply.Span);
    }

    public ValueTask DisposeAsync() => link.DisposeAsync();
}
