using System.Net.Sockets;
using IpcBench.Core.Contract.Options;
using IpcBench.Core.Kit.Streams;

namespace IpcBench.Transports.Sockets;

/// <summary>A listening stream socket; <paramref name="onDispose"/> removes whatever the bind created.</summary>
internal sealed class SocketListener(Socket socket, Uri address, IoMode io, Action<Socket> configureAccepted, Action? onDispose = null)
    : IStreamListener
{
    public Uri Address => address;

    public async ValueTask<Stream> AcceptAsync(CancellationToken ct)
    {
        var accepted = io == IoMode.Sync
            ? await Task.Run(socket.Accept, ct).WaitAsync(ct).ConfigureAwait(false) // see BlockingSockets
            : await socket.AcceptAsync(ct).ConfigureAwait(false);
        configureAccepted(accepted);
        return new NetworkStream(accepted, ownsSocket: true);
    }

    public ValueTask DisposeAsync()
    {
        socket.Dispose();
        onDispose?.Invoke();
        return ValueTask.CompletedTask;
    }
}
