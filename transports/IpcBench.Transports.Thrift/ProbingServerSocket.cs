using System.Net.Sockets;
using IpcBench.Kit.Streams;
using Thrift;
using Thrift.Transport;
using Thrift.Transport.Client;
using Thrift.Transport.Server;

namespace IpcBench.Transports.Thrift;

/// <summary>
/// Thrift's server socket, with keepalive probes on every accepted connection (<see cref="DeadPeerDetection"/>, as every
/// TCP server of IpcBench's has): a client that vanishes without closing (its machine or link gone) would otherwise hold a
/// connection's loop forever, as Thrift sets no timeout of its own.
/// </summary>
internal sealed class ProbingServerSocket(TcpListener listener) : TServerSocketTransport(listener, new TConfiguration())
{
    protected override async ValueTask<TTransport> AcceptImplementationAsync(CancellationToken cancellationToken)
    {
        var accepted = await base.AcceptImplementationAsync(cancellationToken).ConfigureAwait(false);
        if (accepted is TSocketTransport { TcpClient.Client: Socket socket })
        {
            DeadPeerDetection.Enable(socket);
        }
        return accepted;
    }
}
