using Akka.Actor;
using IpcBench.Contract;

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
    private readonly ServerLink _link;
    private readonly TimeSpan _timeout;
    private readonly Queue<TaskCompletionSource<byte[]>> _pending = new(); // in the order the requests were told
    private readonly IActorRef _replies;
    private readonly CancellationTokenRegistration _lostWatch;
    private string? _broken; // why the connection ended: every request after fails with it

    public TellConnection(ServerLink link, TimeSpan timeout)
    {
        (_link, _timeout) = (link, timeout);
        _replies = link.ActorOf(Props.Create(() => new ReplyActor(this)));
        _lostWatch = link.Lost.UnsafeRegister(static s => ((TellConnection)s!).Break("lost: Akka reports the association gone"), this);
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
            _link.Echo.Tell(request.ToArray(), _replies); // under the lock, so that the order told is the order queued
        }
        try
        {
            return FrameTooLargeException.CopyReply(await answer.Task.WaitAsync(_timeout, ct).ConfigureAwait(false), reply.Span);
        }
        catch (TimeoutException)
        {
            answer.TrySetCanceled(); // its caller learns why from the throw below, not from Break's exception
            Break("was closed: an earlier request on it got no reply in time");
            throw TransportErrors.NoReply(_link.Peer, _timeout);
        }
        catch (OperationCanceledException)
        {
            answer.TrySetCanceled();
            Break("was closed: an earlier request on it was cancelled");
            throw;
        }
    }

    /// <summary>Ends the connection ("connection to PEER " + <paramref name="how"/>): the requests waiting fail, and none is sent after.</summary>
    private void Break(string how)
    {
        lock (_pending)
        {
            _broken ??= $"connection to {_link.Peer} {how}";
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

    public ValueTask DisposeAsync()
    {
        _lostWatch.Dispose();
        Break("was closed");
        return _link.DisposeAsync(); // which stops the reply actor; a second dispose repeats only what is harmless
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
