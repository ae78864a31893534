using System.IO.Pipes;
using System.Net;
using System.Net.Sockets;
using IpcBench.Core;
using IpcBench.Transports.Kestrel;
using Microsoft.AspNetCore.Server.Kestrel.Core;

namespace IpcBench.Transports.Grpc;

/// <summary>What a gRPC channel runs over.</summary>
public enum GrpcOver
{
    /// <summary><c>grpc</c>: cleartext HTTP/2 over TCP.</summary>
    Tcp,

    /// <summary><c>grpc-uds</c>: a Unix domain socket (Linux, macOS, and Windows 10 1803 and later).</summary>
    UnixSocket,

    /// <summary><c>grpc-pipe</c>: a Windows named pipe; Kestrel listens on one only on Windows.</summary>
    NamedPipe,
}

/// <summary>
/// gRPC unary calls (Protos/echo.proto) on Kestrel and HttpClient: <c>grpc</c> over cleartext HTTP/2 on
/// TCP; <c>grpc-uds</c> over a Unix domain socket and <c>grpc-pipe</c> over a Windows named pipe, which
/// are what "gRPC over pipes" is on each OS (Kestrel's ListenUnixSocket / ListenNamedPipe, a
/// ConnectCallback on the client). The wire protocol is gRPC's, so any gRPC client can call these
/// servers; the grpc-dotnet packages themselves cannot be restored here.
/// </summary>
public sealed class GrpcTransport(GrpcOver over) : ITransport
{
    /// <summary>The name a grpc-pipe server binds when told <c>grpc-pipe://auto</c>: a fresh one, <c>ipcbench-PID-RANDOM</c>.</summary>
    private const string AutoPipeName = "auto";

    public string Name => over switch
    {
        GrpcOver.UnixSocket => "grpc-uds",
        GrpcOver.NamedPipe => "grpc-pipe",
        _ => "grpc",
    };

    public string Description => over switch
    {
        GrpcOver.UnixSocket => "gRPC (HTTP/2 h2c, unary) over a Unix domain socket: Kestrel ListenUnixSocket + HttpClient ConnectCallback",
        GrpcOver.NamedPipe => "gRPC (HTTP/2 h2c, unary) over a named pipe: Kestrel ListenNamedPipe + HttpClient ConnectCallback (not yet run on Windows)",
        _ => "gRPC (HTTP/2 h2c, unary) over TCP: Kestrel + HttpClient",
    };

    public string? UnsupportedReason => over switch
    {
        GrpcOver.UnixSocket when !Socket.OSSupportsUnixDomainSockets => "this OS has no Unix domain sockets",
        GrpcOver.NamedPipe when !OperatingSystem.IsWindows() =>
            "Kestrel listens on named pipes only on Windows; gRPC over a local channel here is grpc-uds",
        _ => null,
    };

    public TransportCapabilities Capabilities => new(
        TransportFeatures.Reliable | TransportFeatures.MessageBoundaries | (over == GrpcOver.Tcp ? TransportFeatures.CrossHost : 0),
        4 * 1024 * 1024); // gRPC's customary default message limit

    /// <summary>HttpClient and Kestrel are async through and through: there is no blocking mode to vary.</summary>
    public IReadOnlyList<string> Variants => [];

    public Uri DefaultAddress() => over switch
    {
        GrpcOver.UnixSocket => PathAddress.ToUri(Name, PrivateDirectory.DefaultPath("grpc.sock")),
        GrpcOver.NamedPipe => new Uri($"{Name}://{AutoPipeName}"),
        _ => new Uri($"{Name}://127.0.0.1:0"),
    };

    public async ValueTask<IServer> StartServerAsync(Uri address, RequestHandler handler, CancellationToken ct = default)
    {
        EndpointOptions.Parse(address); // io does not apply; the common options are checked all the same
        int max = Capabilities.MaxMessageSize;
        switch (over)
        {
            case GrpcOver.Tcp:
                var endpoint = KestrelHost.TcpEndpoint(address);
                return await GrpcServer.StartAsync(options => options.Listen(endpoint, Http2Only),
                    bound => new Uri($"{Name}://{new Uri(bound).Authority}"), handler, max, () => { }, ct).ConfigureAwait(false);

            case GrpcOver.NamedPipe:
                string pipe = address.Host == AutoPipeName ? "ipcbench-" + PrivateDirectory.UniqueName() : address.Host;
                return await GrpcServer.StartAsync(options => options.ListenNamedPipe(pipe, Http2Only),
                    _ => new Uri($"{Name}://{pipe}"), handler, max, () => { }, ct).ConfigureAwait(false);

            default:
                string path = PrivateDirectory.Resolve(PathAddress.ToPath(address), out string? ownDirectory);
                try
                {
                    await StaleSocketFile.RemoveIfStaleAsync(path, ct).ConfigureAwait(false);
                }
                catch
                {
                    PrivateDirectory.Remove(ownDirectory);
                    throw;
                }
                return await GrpcServer.StartAsync(options => options.ListenUnixSocket(path, Http2Only),
                    _ => PathAddress.ToUri(Name, path), handler, max,
                    () =>
                    {
                        File.Delete(path);
                        PrivateDirectory.Remove(ownDirectory);
                    }, ct).ConfigureAwait(false);
        }
    }

    public async ValueTask<IConnection> ConnectAsync(Uri address, CancellationToken ct = default)
    {
        var options = EndpointOptions.Parse(address);
        var peer = EndpointOptions.WithoutQuery(address);
        var connection = new GrpcConnection(peer, LocalChannel(address), options.ConnectTimeout, options.ConnectTimeout, Capabilities.MaxMessageSize);
        await ConnectProbe.ProbeAsync(connection, peer, options.ConnectTimeout, ct).ConfigureAwait(false); // HTTP/2 connects on the first call
        connection.Timeout = options.RequestTimeout;
        return connection;
    }

    private static void Http2Only(ListenOptions listen) => listen.Protocols = HttpProtocols.Http2;

    /// <summary>How the client opens its connection when it is not TCP: the ConnectCallback's stream. Null for TCP.</summary>
    private GrpcConnection.StreamOpener? LocalChannel(Uri address)
    {
        switch (over)
        {
            case GrpcOver.UnixSocket:
                string path = PathAddress.ToPath(address);
                if (!File.Exists(path))
                {
                    throw new TransportException($"could not connect to {EndpointOptions.WithoutQuery(address)}: no such socket ({path} does not exist)");
                }
                return async ct =>
                {
                    var socket = new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified);
                    try
                    {
                        await socket.ConnectAsync(new UnixDomainSocketEndPoint(path), ct).ConfigureAwait(false);
                        return new NetworkStream(socket, ownsSocket: true);
                    }
                    catch
                    {
                        socket.Dispose();
                        throw;
                    }
                };
            case GrpcOver.NamedPipe:
                string pipe = address.Host;
                return async ct =>
                {
                    var client = new NamedPipeClientStream(".", pipe, PipeDirection.InOut, PipeOptions.Asynchronous | PipeOptions.CurrentUserOnly);
                    try
                    {
                        await client.ConnectAsync(ct).ConfigureAwait(false);
                        return client;
                    }
                    catch
                    {
                        await client.DisposeAsync().ConfigureAwait(false);
                        throw;
                    }
                };
            default:
                return null;
        }
    }
}
