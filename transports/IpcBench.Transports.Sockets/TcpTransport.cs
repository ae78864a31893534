using System.Net;
using System.Net.Sockets;
using IpcBench.Core;
using IpcBench.Core.Options;
using IpcBench.Core.Streams;

namespace IpcBench.Transports.Sockets;

/// <summary>
/// TCP with the length-prefix framing. <c>tcp</c> sets TCP_NODELAY on both ends. <c>tcp-nagle</c> leaves
/// Nagle's algorithm on and writes header and payload separately, as much hand-written framing code
/// does: the payload then waits for the delayed ACK of the header, the classic stall that NoDelay
/// avoids. (<c>tcp-nagle://...?writes=single</c> shows that coalescing the writes avoids it too.)
/// </summary>
public sealed class TcpTransport(bool noDelay) : StreamTransport
{
    public override TransportFamily Family => TransportFamily.Sockets;

    public override string Name => noDelay ? "tcp" : "tcp-nagle";

    public override string Description => noDelay
        ? "TCP over loopback or a network, TCP_NODELAY on both ends"
        : "TCP with Nagle on and header/payload written separately: the delayed-ACK trap";

    protected override bool SplitWritesByDefault => !noDelay;

    public override Uri DefaultAddress() => new($"{Name}://127.0.0.1:0");

    protected override async ValueTask<IStreamListener> ListenAsync(Uri address, EndpointOptions options, CancellationToken ct)
    {
        var endpoint = await Endpoints.ResolveAsync(address, ct).ConfigureAwait(false);
        var socket = new Socket(endpoint.AddressFamily, SocketType.Stream, ProtocolType.Tcp);
        try
        {
            socket.Bind(endpoint);
            socket.Listen(64);
        }
        catch (SocketException e)
        {
            socket.Dispose();
            throw new TransportException($"cannot listen on {endpoint}: {e.Message}", e);
        }
        var bound = Endpoints.ToUri(Name, (IPEndPoint)socket.LocalEndPoint!);
        return new SocketListener(socket, bound, options.Io, Configure);
    }

    protected override async ValueTask<Stream> ConnectStreamAsync(Uri address, EndpointOptions options, CancellationToken ct)
    {
        var endpoint = await Endpoints.ResolveAsync(address, ct).ConfigureAwait(false);
        var socket = new Socket(endpoint.AddressFamily, SocketType.Stream, ProtocolType.Tcp);
        try
        {
            Configure(socket);
            await BlockingSockets.ConnectAsync(socket, endpoint, options.Io, ct).ConfigureAwait(false);
            return new NetworkStream(socket, ownsSocket: true);
        }
        catch
        {
            socket.Dispose();
            throw;
        }
    }

    private void Configure(Socket socket) => socket.NoDelay = noDelay;
}
