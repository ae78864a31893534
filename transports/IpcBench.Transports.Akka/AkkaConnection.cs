using Akka.Actor;
using IpcBench.Contract;
using IpcBench.Kit;

namespace IpcBench.Transports.Akka;

/// <summary>
/// The server's echo actor, resolved once: each request is an <c>Ask&lt;byte[]&gt;</c>, as Akka's users call an actor from
/// outside one (a temporary actor per request for its reply, a scheduled timeout). The request travels as an array of
/// its own and the reply arrives as one. Several Asks may be outstanding at once: each has its own reply actor.
/// </summary>
internal sealed class AkkaConnection(ActorSystem system, IActorRef echo, IActorRef watch, CancellationTokenSource lost, string peer, TimeSpan timeout)
    : IConnection
{
    private int _disposed;

    public async ValueTask<int> RequestAsync(ReadOnlyMemory<byte> request, Memory<byte> reply, CancellationToken ct = default)
    {
        FrameTooLargeException.ThrowIfTooLarge(request.Length, AkkaTransport.MaxPayload);
        using var linked = ct.CanBeCanceled ? CancellationTokenSource.CreateLinkedTokenSource(ct, lost.Token) : null;
        byte[] answer;
        try
        {
            lost.Token.ThrowIfCancellationRequested();
            answer = await echo.Ask<byte[]>(request.ToArray(), timeout, linked?.Token ?? lost.Token).ConfigureAwait(false);
        }
        catch (AskTimeoutException)
        {
            throw TransportErrors.NoReply(peer, timeout);
        }
        catch (OperationCanceledException) when (lost.IsCancellationRequested && !ct.IsCancellationRequested)
        {
            throw new TransportException($"connection to {peer} lost: Akka reports the association gone");
        }
        return FrameTooLargeException.CopyReply(answer, reply.Span);
    }

    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return; // a second dispose must not release the shared ActorSystem again
        }
        system.Stop(watch); // lost is left to the collector: the watch may still be stopping
        await Stopping.WaitAsync(ClientSystem.ReleaseAsync(), $"akka client of {peer}: its ActorSystem did not terminate").ConfigureAwait(false);
    }
}
