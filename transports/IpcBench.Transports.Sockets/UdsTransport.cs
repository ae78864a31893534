using System.Net.Sockets;
using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Kit.Files;
using IpcBench.Kit.Streams;

namespace IpcBench.Transports.Sockets;

/// <summary>
/// Unix domain stream sockets with the length-prefix framing. By default the socket file lives in a
/// fresh private directory (mode 0700) that the server removes when it stops. A stale file left by a
/// killed server is replaced; a file that a live server answers on is refused.
/// </summary>
public sealed class UdsTransport : StreamTransport
{
    public override TransportFamily Family => TransportFamily.Sockets;

    public override string Name => "uds";

    public override string Description => OperatingSystem.IsWindows()
        ? "Unix domain stream socket (AF_UNIX, Windows 10 1803 and later)"
        : "Unix domain stream socket (AF_UNIX), socket file in a private 0700 directory";

    public override string? UnsupportedReason =>
        Socket.OSSupportsUnixDomainSockets ? null : "this OS has no Unix domain sockets";

    public override TransportCapabilities Capabilities => base.Capabilities with { Features = TransportFeatures.Reliable };

    public override Uri DefaultAddress() => PathAddress.ToUri(Name, PrivateDirectory.DefaultPath("s.sock"));

    protected override async ValueTask<IStreamListener> ListenAsync(Uri address, EndpointOptions options, CancellationToken ct)
    {
        var claim = await StaleSocketFile.ClaimAsync(PathAddress.ToPath(address), ct).ConfigureAwait(false);
        var socket = new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified);
        try
        {
            PathAddress.CheckSocketPath(claim.Path);
            socket.Bind(new UnixDomainSocketEndPoint(claim.Path));
            socket.Listen(AcceptLoop.Backlog);
        }
        catch (Exception e)
        {
            socket.Dispose();
            claim.GiveUp();
            if (e is SocketException)
            {
                throw new TransportException($"cannot listen on {claim.Path}: {e.Message}", e);
            }
            throw;
        }
        return new SocketListener(socket, PathAddress.ToUri(Name, claim.Path), options.Io, static _ => { }, claim.Release);
    }

    protected override async ValueTask<Stream> ConnectStreamAsync(Uri address, EndpointOptions options, CancellationToken ct)
    {
        string path = PathAddress.ToPath(address);
        PathAddress.CheckSocketPath(path);
        var socket = new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified);
        try
        {
            await BlockingSockets.ConnectAsync(socket, new UnixDomainSocketEndPoint(path), options.Io, ct).ConfigureAwait(false);
            return new NetworkStream(socket, ownsSocket: true);
        }
        catch
        {
            socket.Dispose();
            throw;
        }
    }
}
