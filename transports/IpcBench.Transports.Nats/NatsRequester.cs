using IpcBench.Contract;
using IpcBench.Kit;
using NATS.Client.Core;

namespace IpcBench.Transports.Nats;

/// <summary>
/// The client: each request is a NATS request to the server's subject, its reply awaited in the connection's shared
/// inbox. Requests are independent of each other, so several may be in flight on one connection.
/// </summary>
internal sealed class NatsRequester(NatsConnection connection, string subject, string peer) : IProbedConnection
{
    private NatsSubOpts _replyOptions = new();

    public TimeSpan ReplyTimeout
    {
        set => _replyOptions = new NatsSubOpts { Timeout = value };
    }

    public async ValueTask<int> RequestAsync(ReadOnlyMemory<byte> request, Memory<byte> reply, CancellationToken ct = default)
    {
        FrameTooLargeException.ThrowIfTooLarge(request.Length, NatsTransport.MaxPayload);
        var options = _replyOptions;
        NatsMsg<NatsMemoryOwner<byte>> answer;
        try
        {
            answer = await connection.RequestAsync<ReadOnlyMemory<byte>, NatsMemoryOwner<byte>>(subject, request, replyOpts: options, cancellationToken: ct)
                .ConfigureAwait(false);
        }
        catch (NatsNoReplyException)
        {
            throw TransportErrors.NoReply(peer, options.Timeout ?? connection.Opts.RequestTimeout);
        }
        catch (NatsNoRespondersException)
        {
            throw new TransportException($"no server subscribes at {peer}: it is gone, or was never there");
        }
        catch (NatsPayloadTooLargeException e) // a nats-server with a max_payload below its default
        {
            throw new TransportException($"{peer} refused a request of {request.Length} B: {e.Message}", e);
        }
        catch (NatsException e)
        {
            throw new TransportException($"connection to {peer} failed: {e.Message}", e);
        }
        using var data = answer.Data;
        if (answer.Error is { } error)
        {
            throw new TransportException($"{peer} sent a reply that could not be read: {error.Message}", error);
        }
        return FrameTooLargeException.CopyReply(data.Memory.Span, reply.Span);
    }

    public ValueTask DisposeAsync() => connection.DisposeAsync();
}
