using IpcBench.Contract;
using IpcBench.Transports.Thrift.Generated;

namespace IpcBench.Transports.Thrift;

/// <summary>The service a server's processor calls: <c>Echo(binary) → binary</c> runs the server's request handler.</summary>
internal sealed class EchoHandler(RequestHandler handler) : EchoService.IAsync
{
    // Thrift leaves an empty binary field unset on some paths: null is the empty request (a connect probe).
    public Task<byte[]> EchoAsync(byte[]? payload, CancellationToken cancellationToken = default) =>
        Task.FromResult(handler.ReplyArray(payload ?? []));
}
