using IpcBench.Contract;
using Microsoft.AspNetCore.SignalR;

namespace IpcBench.Transports.SignalR;

/// <summary>
/// The hub every IpcBench SignalR client calls: <c>Echo(byte[]) → byte[]</c> runs the server's request handler
/// (one, shared by every hub instance: SignalR makes one per call).
/// </summary>
internal sealed class EchoHub(RequestHandler handler) : Hub
{
    public const string Path = "/echo";
    public const string Method = nameof(Echo);

    public byte[] Echo(byte[] payload)
    {
        try
        {
            return handler.ReplyArray(payload);
        }
        catch (TransportException e)
        {
            throw new HubException(e.Message); // a HubException's message reaches the caller; others are hidden
        }
    }
}
