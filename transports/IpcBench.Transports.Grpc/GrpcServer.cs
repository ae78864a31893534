using System.Buffers;
using IpcBench.Core;
using IpcBench.Transports.Kestrel;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Server.Kestrel.Core;

namespace IpcBench.Transports.Grpc;

/// <summary>
/// Kestrel serving the Echo/Call method of Protos/echo.proto over cleartext HTTP/2 (h2c), on a TCP
/// port or a Unix domain socket, inside the 'ipcbench serve' process.
/// </summary>
internal sealed class GrpcServer(KestrelHost host, Uri address) : IServer
{
    public Uri Address { get; } = address;

    /// <param name="listen">Adds the one Kestrel endpoint (HTTP/2 only).</param>
    /// <param name="boundAddress">The address clients use, from Kestrel's bound address.</param>
    public static async Task<GrpcServer> StartAsync(Action<KestrelServerOptions> listen, Func<string, Uri> boundAddress,
        RequestHandler handler, int maxMessage, Action cleanup, CancellationToken ct)
    {
        var call = new EchoCall(handler, maxMessage);
        var host = await KestrelHost.StartAsync(
            options =>
            {
                options.Limits.MaxRequestBodySize = GrpcFraming.FramedSize(maxMessage);
                listen(options);
            },
            _ => { },
            app => app.MapPost(GrpcFraming.Path, call.HandleAsync),
            cleanup, ct).ConfigureAwait(false);
        return new GrpcServer(host, boundAddress(host.BoundAddress));
    }

    public ValueTask DisposeAsync() => host.DisposeAsync();

    /// <summary>One unary call: read the request message, run the handler, write the reply and grpc-status.</summary>
    private sealed class EchoCall(RequestHandler handler, int maxMessage)
    {
        public async Task HandleAsync(HttpContext context)
        {
            var response = context.Response;
            response.ContentType = GrpcFraming.ContentType;
            byte[] prefix = new byte[GrpcFraming.PrefixSize];
            byte[]? request = null;
            byte[]? reply = null;
            try
            {
                await context.Request.Body.ReadExactlyAsync(prefix, context.RequestAborted).ConfigureAwait(false);
                int length = GrpcFraming.ReadPrefix(prefix, GrpcFraming.FramedSize(maxMessage));
                request = ArrayPool<byte>.Shared.Rent(length);
                await context.Request.Body.ReadExactlyAsync(request.AsMemory(0, length), context.RequestAborted).ConfigureAwait(false);
                var payload = GrpcFraming.Payload(request.AsSpan(0, length));
                reply = ArrayPool<byte>.Shared.Rent(GrpcFraming.FramedSize(Math.Max(payload.Length, 64)));
                byte[] answer = ArrayPool<byte>.Shared.Rent(Math.Max(payload.Length, 64));
                int replyLength;
                try
                {
                    replyLength = GrpcFraming.Write(reply, answer.AsSpan(0, handler(payload, answer)));
                }
                finally
                {
                    ArrayPool<byte>.Shared.Return(answer);
                }
                await response.Body.WriteAsync(reply.AsMemory(0, replyLength), context.RequestAborted).ConfigureAwait(false);
                response.AppendTrailer("grpc-status", "0");
            }
            catch (TransportException e)
            {
                // A malformed or oversized message: a gRPC error for this call, nothing else disturbed.
                response.AppendTrailer("grpc-status", e is FrameTooLargeException ? "8" : "3"); // RESOURCE_EXHAUSTED, INVALID_ARGUMENT
                response.AppendTrailer("grpc-message", Uri.EscapeDataString(e.Message));
            }
            catch (EndOfStreamException)
            {
                response.AppendTrailer("grpc-status", "3");
                response.AppendTrailer("grpc-message", "truncated%20message");
            }
            finally
            {
                if (request is not null) ArrayPool<byte>.Shared.Return(request);
                if (reply is not null) ArrayPool<byte>.Shared.Return(reply);
            }
        }
    }
}
