using Akka.Actor;
using IpcBench.Contract;

namespace IpcBench.Transports.Akka;

/// <summary>The server's actor: answers each byte[] with what the server's request handler makes of it.</summary>
internal sealed class EchoActor(RequestHandler handler) : UntypedActor
{
    protected override void OnReceive(object message)
    {
        if (message is byte[] request)
        {
            Sender.Tell(handler.ReplyArray(request), Self);
        }
        else
        {
            Unhandled(message);
        }
    }
}
