using System.Net;
using System.Net.Sockets;
using IpcBench.Contract.Options;

namespace IpcBench.Transports.Sockets;

/// <summary>
/// Keeps sockets meant for blocking I/O truly blocking. On Unix, .NET turns a socket non-blocking for
/// good at its first async operation (AcceptAsync, ConnectAsync, ...); after that every "blocking"
/// call is emulated: the epoll thread sees the data and wakes the waiting thread, one more thread
/// hop and an allocation per call (measured: about 2x the round trip on loopback). So in
/// <see cref="IoMode.Sync"/> sockets are connected and accepted with blocking calls only.
/// </summary>
internal static class BlockingSockets
{
    public static async ValueTask ConnectAsync(Socket socket, EndPoint endpoint, IoMode io, CancellationToken ct)
    {
        if (io == IoMode.Async)
        {
            await socket.ConnectAsync(endpoint, ct).ConfigureAwait(false);
            return;
        }
        // A blocking connect has no timeout of its own: wait for it with one, and close the socket
        // (which ends the connect) when it runs out.
        using var abort = ct.Register(socket.Dispose);
        try
        {
            await Task.Run(() => socket.Connect(endpoint), CancellationToken.None).ConfigureAwait(false);
        }
        catch (Exception e) when (e is SocketException or ObjectDisposedException && ct.IsCancellationRequested)
        {
            throw new OperationCanceledException(ct);
        }
        ct.ThrowIfCancellationRequested();
    }
}
