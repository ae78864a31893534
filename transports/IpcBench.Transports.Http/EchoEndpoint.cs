using System.Buffers;
using IpcBench.Contract;
using IpcBench.Kit.Framing;
using Microsoft.AspNetCore.Http;

namespace IpcBench.Transports.Http;

/// <summary>
/// <c>POST /echo</c>: the request's body through the handler, its reply as the response's body. The body is read into a
/// pooled buffer that grows with the bytes that arrive (<see cref="GrowingBuffer"/>), not to the length the request
/// announces; a body without a length, or over the limit, is refused before anything is read (411, 413), as a Web API would.
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
        byte[] request = await ReadBodyAsync(context.Request.Body, length, context.RequestAborted).ConfigureAwait(false);
        int capacity = handler.ReplyCapacity(length);
        byte[] reply = ArrayPool<byte>.Shared.Rent(capacity);
        try
        {
            int replyLength = handler.Handle(request.AsSpan(0, length), reply.AsSpan(0, capacity));
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

    /// <summary>The body's <paramref name="length"/> bytes in a pooled buffer (the caller returns it), grown as they arrive.</summary>
    private static async Task<byte[]> ReadBodyAsync(Stream body, int length, CancellationToken ct)
    {
        byte[] buffer = ArrayPool<byte>.Shared.Rent(Math.Min(length, GrowingBuffer.Step));
        try
        {
            for (int read = 0; read < length;)
            {
                if (read == buffer.Length)
                {
                    byte[] grown = ArrayPool<byte>.Shared.Rent(GrowingBuffer.NextSize(buffer.Length, length));
                    buffer.AsSpan(0, read).CopyTo(grown);
                    ArrayPool<byte>.Shared.Return(buffer);
                    buffer = grown;
                }
                int n = await body.ReadAsync(buffer.AsMemory(read, Math.Min(buffer.Length, length) - read), ct).ConfigureAwait(false);
                read += n > 0 ? n : throw new EndOfStreamException($"the body ended after {read} of its {length} B");
            }
            return buffer;
        }
        catch
        {
            ArrayPool<byte>.Shared.Return(buffer);
            throw;
        }
    }
}
