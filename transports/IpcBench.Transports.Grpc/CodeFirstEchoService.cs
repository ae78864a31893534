using Grpc.Core;
using IpcBench.Contract;
using ProtoBuf.Grpc;

namespace IpcBench.Transports.Grpc;

/// <summary>The code-first Echo service: each request's payload goes through the server's request handler.</summary>
internal sealed class CodeFirstEchoService(RequestHandler handler) : IEchoContract
{
    public ValueTask<EchoData> CallAsync(EchoData request, CallContext context = default)
    {
        try
        {
            return ValueTask.FromResult(new EchoData { Payload = handler.ReplyArray(request.Payload) });
        }
        catch (TransportException e)
        {
            // As the generated service does: a request the handler refuses fails that call alone.
            throw new RpcException(new Status(e is FrameTooLargeException ? StatusCode.ResourceExhausted : StatusCode.InvalidArgument, e.Message));
        }
    }
}
