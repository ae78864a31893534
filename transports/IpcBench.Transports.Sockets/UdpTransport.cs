using System.Buffers.Binary;
using System.Net;
using System.Net.Sockets;
using IpcBench.Contract;
using IpcBench.Kit;
using IpcBench.Contract.Options;

namespace IpcBench.Transports.Sockets;

/// <summary>
/// UDP: one datagram per request and one per reply, each a 4-byte big-endian sequence number then
/// the payload. The client discards replies to earlier requests, so a reply that arrives after its
/// request timed out cannot be mistaken for the next one. Nothing is retried: a lost datagram is a
/// <see cref="TransportTimeoutException"/>, which a measurement counts as an error.
/// </summary>
public sealed class UdpTransport : ITransport
{
    /// <summary>The largest IPv4 UDP payload (65,535 − 20 IP − 8 UDP), less the sequence number.</summary>
    public const int MaxPayload = 65_507 - Datagram.HeaderSize;

    public TransportFamily Family => TransportFamily.Sockets;

    public string Name => "udp";
    public string Description => "UDP datagrams, one per request and reply; lost replies time out, nothing is retried";
    public string? UnsupportedReason => null;
    public TransportCapabilities Capabilities => new(TransportFeatures.MessageBoundaries | TransportFeatures.CrossHost, MaxPayload);

    public IReadOnlyList<TransportOption> Options => [EndpointOptions.IoOption];

    public Uri DefaultAddress() => new("udp://127.0.0.1:0");

    public async ValueTask<IServer> StartServerAsync(Uri address, RequestHandler handler, CancellationToken ct = default)
    {
        var options = EndpointOptions.Parse(address, this);
        var endpoint = await Endpoints.ResolveAsync(address, ct).ConfigureAwait(false);
        var socket = new Socket(endpoint.AddressFamily, SocketType.Dgram, ProtocolType.Udp);
        try
        {
            socket.Bind(endpoint);
        }
        catch (SocketException e)
        {
            socket.Dispose();
            throw new TransportException($"cannot bind {endpoint}: {e.Message}", e);
        }
        return new UdpServer(socket, Endpoints.ToUri(Name, (IPEndPoint)socket.LocalEndPoint!), handler, options.Io);
    }

    public async ValueTask<IConnection> ConnectAsync(Uri address, CancellationToken ct = default)
    {
        var options = EndpointOptions.Parse(address, this);
        var peer = AddressQuery.WithoutQuery(address);
        var endpoint = await Endpoints.ResolveAsync(address, ct).ConfigureAwait(false);
        var socket = new Socket(endpoint.AddressFamily, SocketType.Dgram, ProtocolType.Udp);
        var connection = new UdpConnection(socket, peer, options);
        try
        {
            // UDP has no handshake: an empty probe request proves that a server answers, so that
            // "nothing there" fails here, clearly, rather than as the first request's timeout.
            socket.Connect(endpoint);
            await connection.ProbeAsync(ct).ConfigureAwait(false);
            return connection;
        }
        catch (Exception e) when (TransportErrors.IsConnectionFailure(e) || e is TransportException)
        {
            await connection.DisposeAsync().ConfigureAwait(false);
            throw e is TransportTimeoutException
                ? new TransportTimeoutException($"could not connect to {peer}: no answer within {options.ConnectTimeout.TotalMilliseconds:0} ms")
                : TransportErrors.ConnectFailed(e, peer, options.ConnectTimeout);
        }
    }
}

/// <summary>The datagram layout: sequence number, then payload.</summary>
internal static class Datagram
{
    public const int HeaderSize = 4;
    public const int MaxSize = 65_507;

    public static uint Sequence(ReadOnlySpan<byte> datagram) => BinaryPrimitives.ReadUInt32BigEndian(datagram);

    public static void WriteSequence(Span<byte> datagram, uint sequence) => BinaryPrimitives.WriteUInt32BigEndian(datagram, sequence);
}
