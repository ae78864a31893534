using System.Buffers;
using IpcBench.Core;
using Microsoft.AspNetCore.Http;

namespace IpcBench.Transports.Http;

/// <summary>
/// <c>POST /echo</c>: the request's body through the handler, its reply as the response's body. The body is read into
/// a pooled buffer of the length the request announces; a body without a length, or over the limit, is refused before
/// anything is read (411, 413), as a Web API would.
/// </summary>
internal static class EchoEndpoint
{
    public const string Path = "/echo";

    public static async Task HandleAsync(HttpContext context, RequestHandler handler)
    {
        if (context.Request.ContentLength is not long announced)
        {
            context.Response.StatusCode = StatusCodes.Status411LengthRequired;
            return;
        }
        if (announced > HttpTransport.MaxPayload)
        {
            context.Response.StatusCode = StatusCodes.Status413PayloadTooLarge;
            return;
        }
        int length = (int)announced;
        int capacity = handler.ReplyCapacity(length);
        byte[] request = ArrayPool<byte>.Shared.Rent(length);
        byte[] reply = ArrayPool<byte>.Shared.Rent(capacity);
        try
        {
            await context.Request.Body.ReadExactlyAsync(request.AsMemory(0, length), context.RequestAborted).ConfigureAwait(false);
            int replyLength = handler(request.AsSpan(0, length), reply.AsSpan(0, capacity));
            context.Response.ContentLength = replyLength;
            context.Response.ContentType = "application/octet-stream";
            await context.Response.Body.WriteAsync(reply.AsMemory(0, replyLength), context.RequestAborted).ConfigureAwait(false);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(request);
            ArrayPool<byte>.Shared.Return(reply);
        }
    }
}
