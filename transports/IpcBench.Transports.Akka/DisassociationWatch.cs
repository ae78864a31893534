using Akka.Actor;
using Akka.Remote;

namespace IpcBench.Transports.Akka;

/// <summary>
/// Ends <paramref name="lost"/> when Akka reports the association with <paramref name="server"/> gone (its process died
/// or stopped): an Ask would otherwise learn of it only at its timeout, as Akka drops what it cannot deliver. Akka
/// publishes this within a few dozen milliseconds of the connection's end.
/// </summary>
internal sealed class DisassociationWatch(Address server, CancellationTokenSource lost) : UntypedActor
{
    protected override void PreStart() => Context.System.EventStream.Subscribe(Self, typeof(DisassociatedEvent));

    protected override void PostStop() => Context.System.EventStream.Unsubscribe(Self);

    protected override void OnReceive(object message)
    {
        if (message is DisassociatedEvent gone && gone.RemoteAddress == server)
        {
            lost.Cancel();
        }
    }
}
