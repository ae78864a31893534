using IpcBench.Core;
using IpcBench.Core.Measurement;

namespace IpcBench.Transports.JsonRpc;

/// <summary>The object a server attaches to each connection: <c>Echo(byte[]) → byte[]</c> runs the server's request handler.</summary>
public sealed class EchoTarget(RequestHandler handler)
{
    public const string Method = nameof(Echo);

    public byte[] Echo(byte[] payload)
    {
        byte[] reply = new byte[Math.Max(payload.Length, ServerStats.MessageSize)];
        int length = handler(payload, reply);
        return length == reply.Length ? reply : reply[..length];
    }
}
