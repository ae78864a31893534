using System.Net;
using System.Net.Sockets;
using IpcBench.Core;
using IpcBench.Core.Streams;

namespace IpcBench.Transports.Sockets;

/// <summary>
/// TCP with the length-prefix framing. <c>tcp</c> sets TCP_NODELAY on both ends; <c>tcp-nagle</c>
/// leaves Nagle's algorithm on, to show the delayed-ACK stall that NoDelay avoids.
/// </summary>
public sealed class TcpTransport(bool noDelay) : StreamTransport
{
    public override string Name => noDelay ? "tcp" : "tcp-nagle";

    public override string Description => noDelay
        ? "TCP over loopback or a network, TCP_NODELAY on both ends"
        : "TCP with Nagle's algorithm left on (the delayed-ACK trap)";

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
