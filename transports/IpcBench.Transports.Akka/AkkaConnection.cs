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
        system.Stop(watch); // lost is left to the collector: the watch may still be stopping
        try
        {
            await ClientSystem.ReleaseAsync().WaitAsync(IServer.StopTimeout).ConfigureAwait(false);
        }
        catch (TimeoutException)
        {
            Log.Warn($"akka client of {peer}: its ActorSystem did not terminate within {IServer.StopTimeout.TotalSeconds:0} s");
        }
    }
}
