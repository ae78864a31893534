using Akka.Actor;
using IpcBench.Contract;
using IpcBench.Kit;

namespace IpcBench.Transports.Akka;

/// <summary>An ActorSystem of its own with the echo actor at <c>/user/echo</c>; stopping the server terminates the system.</summary>
internal sealed class AkkaServer(ActorSystem system, Uri address) : IServer
{
    public Uri Address => address;

    public static AkkaServer Start(string scheme, string host, int port, RequestHandler handler)
    {
        ActorSystem system;
        try
        {
            system = ActorSystem.Create(AkkaSettings.ServerSystem, AkkaSettings.Remote(host, port));
        }
        catch (Exception e)
        {
            throw new TransportException($"cannot listen on {host}:{port}: {TransportErrors.Innermost(e).Message}", e);
        }
        system.ActorOf(Props.Create(() => new EchoActor(handler)), AkkaSettings.EchoActor);
        var bound = ((ExtendedActorSystem)system).Provider.DefaultAddress; // the port the OS chose, once Create returns
        return new AkkaServer(system, new UriBuilder(scheme, bound.Host, bound.Port ?? port).Uri);
    }

    public async ValueTask DisposeAsync() => // Terminate runs Akka's coordinated shutdown
        await Stopping.WaitAsync(system.Terminate(), $"akka server {Address}: its ActorSystem did not terminate").ConfigureAwait(false);
}
