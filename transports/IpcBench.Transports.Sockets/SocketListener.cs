using System.Net.Sockets;
using IpcBench.Contract.Options;
using IpcBench.Kit.Streams;

namespace IpcBench.Transports.Sockets;

/// <summary>A listening stream socket; <paramref name="onDispose"/> removes whatever the bind created.</summary>
internal sealed class SocketListener(Socket socket, Uri address, IoMode io, Action<Socket> configureAccepted, Action? onDispose = null)
    : IStreamListener
{
    public Uri Address => address;

    /// <summary>How long a blocking accept waits before it looks whether the listener is stopping.</summary>
    private static readonly TimeSpan AcceptPoll = TimeSpan.FromMilliseconds(100);

    public async ValueTask<Stream> AcceptAsync(CancellationToken ct)
    {
        var accepted = io == IoMode.Sync
            ? await Task.Run(() => AcceptBlocking(ct), ct).WaitAsync(ct).ConfigureAwait(false) // see BlockingSockets
            : await socket.AcceptAsync(ct).ConfigureAwait(false);
        configureAccepted(accepted);
        return new NetworkStream(accepted, ownsSocket: true);
    }

    /// <summary>
    /// A blocking accept that never blocks for long: .NET disposes a socket that another thread is blocked in by calling
    /// shutdown() until that call returns, and under gVisor a host socket's accept ignores shutdown(), so Dispose would
    /// spin for good and the server never stop. Polling first bounds that wait.
    /// </summary>
    private Socket AcceptBlocking(CancellationToken ct)
    {
        while (!socket.Poll(AcceptPoll, SelectMode.SelectRead))
        {
            ct.ThrowIfCancellationRequested();
        }
        return socket.Accept();
    }

    public ValueTask DisposeAsync()
    {
        socket.Dispose();
        onDispose?.Invoke();
        return ValueTask.CompletedTask;
    }
}
