using Google.Protobuf;
using Grpc.Core;
using Ipcbench;
using IpcBench.Contract;

namespace IpcBench.Transports.Grpc;

/// <summary>What the unary and the streaming connection do alike: wrap a request, name a failure.</summary>
internal static class GrpcMessages
{
    /// <summary>
    /// The request as a message, wrapping the caller's bytes rather than copying them (Google.Protobuf's
    /// UnsafeByteOperations): the bytes stay untouched until the call has sent them.
    /// </summary>
    public static EchoMessage Request(ReadOnlyMemory<byte> payload, int maxPayload) =>
        payload.Length > maxPayload
            ? throw new FrameTooLargeException(payload.Length, maxPayload)
            : new EchoMessage { Payload = UnsafeByteOperations.UnsafeWrap(payload) };

    /// <summary>
    /// A unary call's answer copied into <paramref name="reply"/>: a passed deadline is no reply (with
    /// ThrowOperationCanceledOnCancellation grpc-dotnet reports it as a cancellation), any other status a failure.
    /// </summary>
    public static async ValueTask<int> ReplyAsync<T>(ValueTask<T> call, Func<T, ReadOnlyMemory<byte>> payload, Memory<byte> reply,
        string peer, TimeSpan timeout, CancellationToken ct)
    {
        try
        {
            return FrameTooLargeException.CopyReply(payload(await call.ConfigureAwait(false)).Span, reply.Span);
        }
        catch (OperationCanceledException) when (!ct.IsCancellationRequested)
        {
            throw TransportErrors.NoReply(peer, timeout);
        }
        catch (RpcException e)
        {
            throw Failure(e, peer, timeout);
        }
    }

    public static TransportException Failure(RpcException e, string peer, TimeSpan timeout) => e.StatusCode switch
    {
        StatusCode.DeadlineExceeded => TransportErrors.NoReply(peer, timeout),
        StatusCode.Unavailable => new TransportException($"connection to {peer} failed: {e.Status.Detail}", e),
        _ => new TransportException($"{peer} answered gRPC status {e.StatusCode}: {e.Status.Detail}", e),
    };
}
