using Google.Protobuf;
using Grpc.Core;
using Ipcbench;
using IpcBench.Contract;
using Microsoft.Extensions.Hosting;

namespace IpcBench.Transports.Grpc;

/// <summary>
/// The Echo service of Protos/echo.proto, on the base class Grpc.Tools generates: each request's payload
/// goes through the server's request handler (one, shared by every call). Grpc.AspNetCore makes one instance per call.
/// </summary>
internal sealed class EchoService(RequestHandler handler, IHostApplicationLifetime lifetime) : Echo.EchoBase
{
    public override Task<EchoMessage> Call(EchoMessage request, ServerCallContext context) =>
        Task.FromResult(Answer(request));

    public override async Task Stream(IAsyncStreamReader<EchoMessage> requests, IServerStreamWriter<EchoMessage> replies, ServerCallContext context)
    {
        // A stream ends when the server stops, too: Kestrel's graceful stop would otherwise wait for the client to end it.
        using var call = CancellationTokenSource.CreateLinkedTokenSource(context.CancellationToken, lifetime.ApplicationStopping);
        try
        {
            while (await requests.MoveNext(call.Token).ConfigureAwait(false))
            {
                await replies.WriteAsync(Answer(requests.Current), call.Token).ConfigureAwait(false);
            }
        }
        catch (OperationCanceledException) when (lifetime.ApplicationStopping.IsCancellationRequested)
        {
            throw new RpcException(new Status(StatusCode.Unavailable, "the server is stopping"));
        }
    }

    private EchoMessage Answer(EchoMessage request)
    {
        try
        {
            // The reply array is the message's own from here on: wrapped, not copied.
            return new EchoMessage { Payload = UnsafeByteOperations.UnsafeWrap(handler.ReplyArray(request.Payload.Span)) };
        }
        catch (TransportException e)
        {
            // A request the handler refuses fails that call alone, with a status any gRPC client understands.
            throw new RpcException(new Status(e is FrameTooLargeException ? StatusCode.ResourceExhausted : StatusCode.InvalidArgument, e.Message));
        }
    }
}
