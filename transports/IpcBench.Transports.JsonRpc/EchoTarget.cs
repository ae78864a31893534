using IpcBench.Contract;

namespace IpcBench.Transports.JsonRpc;

/// <summary>The object a server attaches to each connection: <c>Echo(byte[]) → byte[]</c> runs the server's request handler.</summary>
public sealed class EchoTarget(RequestHandler handler)
{
    public const string Method = nameof(Echo);

    public byte[] Echo(byte[] payload) => handler.ReplyArray(payload);
}
