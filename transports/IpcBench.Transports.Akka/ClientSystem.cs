using Akka.Actor;

namespace IpcBench.Transports.Akka;

/// <summary>
/// The one ActorSystem a client process runs, as Akka's users run one per process: made by the first connection, shared
/// by every connection open at once (a load run's clients), terminated when the last one closes. Starting one costs
/// half a second or more, which a connection's first request does not pay twice.
/// </summary>
internal static class ClientSystem
{
    private static readonly Lock Gate = new();
    private static ActorSystem? _system;
    private static int _users;

    public static ActorSystem Acquire()
    {
        lock (Gate)
        {
            _system ??= ActorSystem.Create("ipcbench-client", AkkaSettings.Remote("127.0.0.1", 0));
            _users++;
            return _system;
        }
    }

    public static Task ReleaseAsync()
    {
        ActorSystem? ending = null;
        lock (Gate)
        {
            if (--_users == 0)
            {
                (ending, _system) = (_system, null);
            }
        }
        return ending?.Terminate() ?? Task.CompletedTask;
    }
}
