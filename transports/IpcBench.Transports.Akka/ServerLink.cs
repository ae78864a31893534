using System.Net;
using Akka.Actor;
using IpcBench.Contract;
using IpcBench.Kit;

namespace IpcBench.Transports.Akka;

/// <summary>
/// What a connection stands on, whichever way it calls (Ask or Tell): a hold on the client process's ActorSystem, the
/// server's echo actor resolved there, and the watch that tells it Akka has seen the association end. Disposed once,
/// it stops its actors and releases the ActorSystem, which ends with the last connection (<see cref="ClientSystem"/>).
/// </summary>
internal sealed class ServerLink : IAsyncDisposable
{
    private readonly ActorSystem _system;
    private readonly List<IActorRef> _actors = []; // the link's own, stopped with it: the watch, a Tell's reply actor
    private int _disposed;

    private ServerLink(ActorSystem system, IActorRef echo, IActorRef watch, CancellationToken lost, string peer)
    {
        (_system, Echo, Lost, Peer) = (system, echo, lost, peer);
        _actors.Add(watch);
    }

    /// <summary>The server's echo actor.</summary>
    public IActorRef Echo { get; }

    /// <summary>Cancelled when Akka reports the association with the server gone (its process died or stopped).</summary>
    public CancellationToken Lost { get; }

    /// <summary>The server's address, for error messages.</summary>
    public string Peer { get; }

    /// <summary>Starts an actor in the client's ActorSystem that lives as long as the link.</summary>
    public IActorRef ActorOf(Props props)
    {
        var actor = _system.ActorOf(props);
        lock (_actors)
        {
            _actors.Add(actor);
        }
        return actor;
    }

    public static async Task<ServerLink> OpenAsync(IPEndPoint endpoint, string peer, TimeSpan connectTimeout, CancellationToken ct)
    {
        var system = await Task.Run(() => ClientSystem.Acquire(endpoint), ct).ConfigureAwait(false);
        try
        {
            var server = new Address("akka.tcp", AkkaSettings.ServerSystem, endpoint.Address.ToString(), endpoint.Port);
            var echo = await system.ActorSelection(new RootActorPath(server) / "user" / AkkaSettings.EchoActor)
                .ResolveOne(connectTimeout).WaitAsync(ct).ConfigureAwait(false);
            var lost = new CancellationTokenSource(); // left to the collector: the watch may still be stopping when the link is
            var watch = system.ActorOf(Props.Create(() => new DisassociationWatch(server, lost)));
            return new ServerLink(system, echo, watch, lost.Token, peer);
        }
        catch (Exception e)
        {
            await ClientSystem.ReleaseAsync().ConfigureAwait(false);
            throw e switch
            {
                ActorNotFoundException => new TransportException($"could not connect to {peer}: no echo actor answered there (is the server running?)", e),
                TimeoutException or AskTimeoutException => new TransportTimeoutException(
                    $"could not connect to {peer} within {connectTimeout.TotalMilliseconds:0} ms"),
                _ => e,
            };
        }
    }

    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return; // a second dispose must not release the shared ActorSystem again
        }
        lock (_actors)
        {
            _actors.ForEach(_system.Stop);
        }
        await Stopping.WaitAsync(ClientSystem.ReleaseAsync(), $"akka client of {Peer}: its ActorSystem did not terminate").ConfigureAwait(false);
    }
}
