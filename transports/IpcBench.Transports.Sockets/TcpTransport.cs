using System.Net;
using System.Net.Security;
using System.Net.Sockets;
using System.Security.Authentication;
using IpcBench.Contract;
using IpcBench.Kit;
using IpcBench.Contract.Options;
using IpcBench.Kit.Streams;
using Certificates = IpcBench.Kit.Security.Tls;

namespace IpcBench.Transports.Sockets;

/// <summary>
/// TCP with the length-prefix framing. <c>tcp</c> sets TCP_NODELAY on both ends. <c>tcp-nagle</c> leaves
/// Nagle's algorithm on and writes header and payload separately, as much hand-written framing code
/// does: the payload then waits for the delayed ACK of the header, the classic stall that NoDelay
/// avoids. (<c>tcp-nagle://...?writes=single</c> shows that coalescing the writes avoids it too.)
/// <c>tcp-tls</c> is <c>tcp</c> inside SslStream, TLS 1.3, with a certificate the server makes and the client pins
/// (<see cref="Certificates"/>): what encrypting costs, per request and (in the connect scenario) per handshake.
/// </summary>
public sealed class TcpTransport : StreamTransport
{
    public static TcpTransport NoDelay { get; } = new("tcp", "TCP over loopback or a network, TCP_NODELAY on both ends", noDelay: true);

    /// <summary>Nagle on, and the header and payload written separately.</summary>
    public static TcpTransport Nagle { get; } = new("tcp-nagle",
        "TCP with Nagle on and header/payload written separately: the delayed-ACK trap", noDelay: false);

    /// <summary>TCP_NODELAY, and TLS 1.3 (SslStream) over it.</summary>
    public static TcpTransport Tls { get; } = new("tcp-tls",
        "TCP (TCP_NODELAY) inside SslStream, TLS 1.3, a self-signed certificate made by the server and pinned by the client", noDelay: true, secure: true);

    private readonly bool _noDelay;
    private readonly bool _secure;

    private TcpTransport(string name, string description, bool noDelay, bool secure = false)
    {
        Name = name;
        Description = description;
        _noDelay = noDelay;
        _secure = secure;
    }

    public override TransportFamily Family => TransportFamily.Sockets;

    public override string Name { get; }

    public override string Description { get; }

    public override IReadOnlyList<TransportOption> Options => _secure ? [.. base.Options, Certificates.Pin] : base.Options;

    /// <summary>Hand-written framing code's habit, which Nagle's algorithm punishes.</summary>
    protected override bool SplitWritesByDefault => !_noDelay;

    public override Uri DefaultAddress() => new($"{Name}://127.0.0.1:0");

    protected override async ValueTask<IStreamListener> ListenAsync(Uri address, EndpointOptions options, CancellationToken ct)
    {
        var endpoint = await Endpoints.ResolveAsync(address, ct).ConfigureAwait(false);
        var socket = new Socket(endpoint.AddressFamily, SocketType.Stream, ProtocolType.Tcp);
        try
        {
            socket.Bind(endpoint);
            socket.Listen(AcceptLoop.Backlog);
        }
        catch (SocketException e)
        {
            socket.Dispose();
            throw new TransportException($"cannot listen on {endpoint}: {e.Message}", e);
        }
        var bound = Endpoints.ToUri(Name, (IPEndPoint)socket.LocalEndPoint!);
        var listener = new SocketListener(socket, bound, options.Io, accepted =>
        {
            Configure(accepted);
            DeadPeerDetection.Enable(accepted);
        });
        return _secure ? new TlsListener(listener, Certificates.CreateCertificate(), options.ConnectTimeout) : listener;
    }

    protected override async ValueTask<Stream> ConnectStreamAsync(Uri address, EndpointOptions options, CancellationToken ct)
    {
        string? pin = _secure ? Certificates.RequirePin(address, this) : null;
        var endpoint = await Endpoints.ResolveAsync(address, ct).ConfigureAwait(false);
        var socket = new Socket(endpoint.AddressFamily, SocketType.Stream, ProtocolType.Tcp);
        Stream? stream = null;
        try
        {
            Configure(socket);
            await BlockingSockets.ConnectAsync(socket, endpoint, options.Io, ct).ConfigureAwait(false);
            stream = new NetworkStream(socket, ownsSocket: true);
            if (pin is null)
            {
                return stream;
            }
            var tls = new SslStream(stream, leaveInnerStreamOpen: false);
            stream = tls;
            await tls.AuthenticateAsClientAsync(Certificates.ClientOptions(pin), ct).ConfigureAwait(false);
            return tls;
        }
        catch (AuthenticationException e)
        {
            await stream!.DisposeAsync().ConfigureAwait(false);
            throw new TransportException($"TLS handshake with {AddressQuery.WithoutQuery(address)} failed: {e.Message} (is pin= its server's?)", e);
        }
        catch
        {
            if (stream is not null)
            {
                await stream.DisposeAsync().ConfigureAwait(false);
            }
            socket.Dispose();
            throw;
        }
    }

    private void Configure(Socket socket) => socket.NoDelay = _noDelay;
}
