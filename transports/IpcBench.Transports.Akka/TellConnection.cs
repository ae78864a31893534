using Akka.Actor;
using IpcBench.Contract;
using IpcBench.Kit;

namespace IpcBench.Transports.Akka;

/// <summary>
/// <c>call=tell</c>: what Akka's users do between actors instead of Ask. The connection keeps one reply actor of its own
/// for its life; each request is a Tell to the server's echo actor with that actor as its sender, so the echo's reply
/// comes back to it. No temporary actor and no scheduled timeout per request, which is what Ask costs. Akka delivers
/// the messages between one pair of actors in the order they were sent, so the replies complete the requests in order;
/// a request that times out therefore ends the connection: a late reply would be taken for the next request's.
/// </summary>
internal sealed class TellConnection : IConnection
{
    private readonly ActorSystem _system;
    private readonly IActorRef _echo;
    private readonly IActorRef _watch;
    private readonly string _peer;
    private readonly TimeSpan _timeout;
    private readonly Queue<TaskCompletionSource<byte[]>> _pending = new(); // in the order the requests were told
    private readonly IActorRef _replies;
    private readonly CancellationTokenRegistration _lostWatch;
    private string? _broken; // why the connection ended: every request after fails with it
    private int _disposed;

    public TellConnection(ActorSystem system, IActorRef echo, IActorRef watch, CancellationTokenSource lost, string peer, TimeSpan timeout)
    {
        (_system, _echo, _watch, _peer, _timeout) = (system, echo, watch, peer, timeout);
        _replies = system.ActorOf(Props.Create(() => new ReplyActor(this)));
        _lostWatch = lost.Token.UnsafeRegister(static s => ((TellConnection)s!).Break("lost: Akka reports the association gone"), this);
    }

    public async ValueTask<int> RequestAsync(ReadOnlyMemory<byte> request, Memory<byte> reply, CancellationToken ct = default)
    {
        FrameTooLargeException.ThrowIfTooLarge(request.Length, AkkaTransport.MaxPayload);
        var answer = new TaskCompletionSource<byte[]>(TaskCreationOptions.RunContinuationsAsynchronously);
        lock (_pending)
        {
            if (_broken is { } why)
            {
                throw new TransportException(why);
            }
            _pending.Enqueue(answer);
            _echo.Tell(request.ToArray(), _replies); // under the lock, so that the order told is the order queued
        }
        try
        {
            return FrameTooLargeException.CopyReply(await answer.Task.WaitAsync(_timeout, ct).ConfigureAwait(false), reply.Span);
        }
        catch (TimeoutException)
        {
            Break("was closed: an earlier request on it got no reply in time");
            throw TransportErrors.NoReply(_peer, _timeout);
        }
        catch (OperationCanceledException)
        {
            Break("was closed: an earlier request on it was cancelled");
            throw;
        }
    }

    /// <summary>Ends the connection ("connection to PEER " + <paramref name="how"/>): the requests waiting fail, and none is sent after.</summary>
    private void Break(string how)
    {
        lock (_pending)
        {
            _broken ??= $"connection to {_peer} {how}";
            while (_pending.TryDequeue(out var waiting))
            {
                waiting.TrySetException(new TransportException(_broken));
            }
        }
    }

    private void Complete(byte[] reply)
    {
        lock (_pending)
        {
            if (_pending.TryDequeue(out var waiting))
            {
                waiting.TrySetResult(reply);
            }
        }
    }

    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return; // a second dispose must not release the shared ActorSystem again
        }
        _lostWatch.Dispose();
        Break("was closed");
        _system.Stop(_replies);
        _system.Stop(_watch);
        await Stopping.WaitAsync(ClientSystem.ReleaseAsync(), $"akka client of {_peer}: its ActorSystem did not terminate").ConfigureAwait(false);
    }

    /// <summary>The connection's own actor, the sender of its requests: each reply it receives is the oldest request's.</summary>
    private sealed class ReplyActor(TellConnection connection) : UntypedActor
    {
        protected override void OnReceive(object message)
        {
            if (message is byte[] reply)
            {
                connection.Complete(reply);
            }
            else
            {
                Unhandled(message);
            }
        }
    }
}
