using NetMQ;

namespace IpcBench.Transports.ZeroMQ;

/// <summary>
/// NetMQ runs one context per process, with I/O threads of its own, and wants
/// <c>NetMQConfig.Cleanup</c> once its last socket is gone. This counts IpcBench's NetMQ sockets and
/// cleans up (without blocking: every socket has linger 0) when the count returns to zero, so that no
/// process is kept waiting at exit. Sockets are created under the same lock, so a cleanup never
/// catches one being born.
/// </summary>
internal static class NetMqRuntime
{
    private static readonly Lock Gate = new();
    private static int _sockets;

    public static T Open<T>(Func<T> create) where T : NetMQSocket
    {
        lock (Gate)
        {
            var socket = create();
            socket.Options.Linger = TimeSpan.Zero; // closing never waits for unsent messages
            _sockets++;
            return socket;
        }
    }

    public static void Close(NetMQSocket socket)
    {
        lock (Gate)
        {
            socket.Dispose();
            if (--_sockets == 0)
            {
                NetMQConfig.Cleanup(block: false);
            }
        }
    }
}
