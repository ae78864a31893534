using System.Net.Sockets;
using Grpc.Net.Client;
using IpcBench.Core;
using IpcBench.Core.Hosting;
using IpcBench.Core.Options;
using IpcBench.Core.Security;
using IpcBench.Transports.Kestrel;
using IpcBench.Transports.Pipes;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.AspNetCore.Server.Kestrel.Https;
using Microsoft.Extensions.DependencyInjection;

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

/// <summary>How a connection calls: one unary call per request, or one stream held open.</summary>
public enum GrpcCalls
{
    Unary,
    Stream,
}

/// <summary>
/// gRPC on grpc-dotnet (Protos/echo.proto): Grpc.AspNetCore on Kestrel serving, a GrpcChannel and the
/// generated client calling. <c>grpc</c> is unary calls over cleartext HTTP/2 on TCP; <c>grpc-uds</c>
/// and <c>grpc-pipe</c> the same over a Unix domain socket and a Windows named pipe, which is what
/// "gRPC over pipes" is on each OS (Kestrel's ListenUnixSocket / ListenNamedPipe, a SocketsHttpHandler
/// ConnectCallback on the client, as Microsoft's inter-process gRPC articles show); <c>grpc-stream</c>
/// is one bidirectional stream held open over TCP, a message each way per request; <c>grpc-tls</c> is <c>grpc</c> over
/// HTTPS (TLS 1.3, ALPN h2), with a certificate the server makes and the client pins (<see cref="Tls"/>).
/// </summary>
public sealed class GrpcTransport(GrpcOver over, GrpcCalls calls = GrpcCalls.Unary, bool secure = false) : ITransport
{
    /// <summary>The largest payload: gRPC's customary default message limit.</summary>
    private const int MaxPayload = 4 * 1024 * 1024;

    /// <summary>The largest encoded message: the payload behind its field tag and length (at most 6 bytes).</summary>
    private const int MaxMessage = MaxPayload + 16;

    public TransportFamily Family => TransportFamily.Rpc;

    public string Name => (over, calls) switch
    {
        _ when secure => "grpc-tls",
        (GrpcOver.UnixSocket, _) => "grpc-uds",
        (GrpcOver.NamedPipe, _) => "grpc-pipe",
        (_, GrpcCalls.Stream) => "grpc-stream",
        _ => "grpc",
    };

    public string Description => (over, calls) switch
    {
        _ when secure => "grpc-dotnet unary calls over HTTPS (HTTP/2, TLS 1.3) on TCP, a self-signed certificate made by the server and pinned by the client",
        (GrpcOver.UnixSocket, _) => "grpc-dotnet unary calls (HTTP/2 h2c) over a Unix domain socket: Kestrel ListenUnixSocket + GrpcChannel ConnectCallback",
        (GrpcOver.NamedPipe, _) => "grpc-dotnet unary calls (HTTP/2 h2c) over a named pipe: Kestrel ListenNamedPipe + GrpcChannel ConnectCallback (not yet run on Windows)",
        (_, GrpcCalls.Stream) => "grpc-dotnet bidirectional stream held open (HTTP/2 h2c) over TCP, a message each way per request: Grpc.AspNetCore + GrpcChannel",
        _ => "grpc-dotnet unary calls (HTTP/2 h2c) over TCP: Grpc.AspNetCore on Kestrel + GrpcChannel",
    };

    public string? UnsupportedReason => over switch
    {
        GrpcOver.UnixSocket when !Socket.OSSupportsUnixDomainSockets => "this OS has no Unix domain sockets",
        GrpcOver.NamedPipe when !OperatingSystem.IsWindows() =>
            "Kestrel listens on named pipes only on Windows; gRPC over a local channel here is grpc-uds",
        _ => null,
    };

    /// <summary>Unary calls are pipelined: HTTP/2 carries concurrent calls on one channel, each its own stream.</summary>
    public TransportCapabilities Capabilities => new(
        TransportFeatures.Reliable | TransportFeatures.MessageBoundaries | (over == GrpcOver.Tcp ? TransportFeatures.CrossHost : 0)
        | (calls == GrpcCalls.Unary ? TransportFeatures.Pipelined : 0),
        MaxPayload);

    /// <summary>grpc-dotnet and Kestrel are async through and through: there is no blocking mode to vary.</summary>
    public IReadOnlyList<TransportOption> Options => secure ? [Tls.Pin] : [];

    public Uri DefaultAddress() => over switch
    {
        GrpcOver.UnixSocket => PathAddress.ToUri(Name, PrivateDirectory.DefaultPath("grpc.sock")),
        GrpcOver.NamedPipe => new Uri($"{Name}://{PipeEndpoint.AutoName}"),
        _ => new Uri($"{Name}://127.0.0.1:0"),
    };

    public async ValueTask<IServer> StartServerAsync(Uri address, RequestHandler handler, CancellationToken ct = default)
    {
        EndpointOptions.Parse(address, this); // the common options are checked here too
        switch (over)
        {
            case GrpcOver.Tcp when secure:
                var certificate = Tls.CreateCertificate();
                return await ServeAsync(options => options.Listen(KestrelHost.TcpEndpoint(address), listen =>
                    {
                        Http2Only(listen);
                        listen.UseHttps(new HttpsConnectionAdapterOptions { ServerCertificate = certificate, SslProtocols = Tls.Protocols });
                    }),
                    bound => Tls.WithPin(KestrelHost.TcpAddress(Name)(bound), certificate), handler,
                    certificate.Dispose, ct).ConfigureAwait(false);

            case GrpcOver.Tcp:
                var endpoint = KestrelHost.TcpEndpoint(address);
                return await ServeAsync(options => options.Listen(endpoint, Http2Only),
                    KestrelHost.TcpAddress(Name), handler, () => { }, ct).ConfigureAwait(false);

            case GrpcOver.NamedPipe:
                string pipe = await PipeEndpoint.ClaimNameAsync(AddressQuery.WithoutQuery(address), ct).ConfigureAwait(false);
                return await ServeAsync(options => options.ListenNamedPipe(pipe, Http2Only),
                    _ => new Uri($"{Name}://{pipe}"), handler, () => { }, ct).ConfigureAwait(false);

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
                return await ServeAsync(options => options.ListenUnixSocket(path, Http2Only),
                    _ => PathAddress.ToUri(Name, path), handler,
                    () =>
                    {
                        PrivateDirectory.TryDeleteFile(path);
                        PrivateDirectory.Remove(ownDirectory);
                    }, ct).ConfigureAwait(false);
        }
    }

    public async ValueTask<IConnection> ConnectAsync(Uri address, CancellationToken ct = default)
    {
        var options = EndpointOptions.Parse(address, this);
        var peer = AddressQuery.WithoutQuery(address);
        var channel = OpenChannel(address, options.ConnectTimeout);
        IProbedConnection connection = calls == GrpcCalls.Stream
            ? new GrpcStreamConnection(channel, peer.ToString(), MaxPayload)
            : new GrpcUnaryConnection(channel, peer.ToString(), MaxPayload);
        // HTTP/2 connects on the first call (and GrpcChannel.ConnectAsync refuses a ConnectCallback): one call shows a server is there.
        await ConnectProbe.ProbeAsync(connection, peer, options.ConnectTimeout, options.RequestTimeout, ct).ConfigureAwait(false);
        return connection;
    }

    /// <summary>
    /// A channel of its own for each connection (so one HTTP/2 connection), on a SocketsHttpHandler: for TCP
    /// as GrpcChannel.ForAddress makes one, plus a connect timeout; otherwise with a ConnectCallback that
    /// opens the Unix socket or the named pipe.
    /// </summary>
    private GrpcChannel OpenChannel(Uri address, TimeSpan connectTimeout)
    {
        var handler = new SocketsHttpHandler { ConnectTimeout = connectTimeout, EnableMultipleHttp2Connections = true };
        string target = "http://localhost"; // over a socket or a pipe the authority is a formality
        if (LocalStream(address) is { } open)
        {
            handler.ConnectCallback = (_, ct) => open(ct);
        }
        else if (secure)
        {
            handler.SslOptions = Tls.ClientOptions(Tls.RequirePin(address, this));
            target = $"https://{address.Authority}";
        }
        else
        {
            target = $"http://{address.Authority}";
        }
        return GrpcChannel.ForAddress(target, new GrpcChannelOptions
        {
            HttpHandler = handler,
            DisposeHttpClient = true,
            MaxReceiveMessageSize = MaxMessage,
            MaxSendMessageSize = MaxMessage,
            ThrowOperationCanceledOnCancellation = true,
        });
    }

    private static void Http2Only(ListenOptions listen) => listen.Protocols = HttpProtocols.Http2;

    /// <summary>
    /// Grpc.AspNetCore serving <see cref="EchoService"/> on Kestrel over HTTP/2, inside the 'ipcbench serve' process.
    /// </summary>
    /// <param name="listen">Adds the one Kestrel endpoint (HTTP/2 only).</param>
    private static async Task<IServer> ServeAsync(Action<KestrelServerOptions> listen, Func<string, Uri> address,
        RequestHandler handler, Action cleanup, CancellationToken ct) =>
        await KestrelHost.StartAsync(
            listen,
            services =>
            {
                services.AddSingleton(handler);
                services.AddGrpc(o => o.MaxReceiveMessageSize = o.MaxSendMessageSize = MaxMessage);
            },
            app => app.MapGrpcService<EchoService>(),
            address, cleanup, ct).ConfigureAwait(false);

    /// <summary>How the client opens its connection when it is not TCP: the ConnectCallback's stream. Null for TCP.</summary>
    private Func<CancellationToken, ValueTask<Stream>>? LocalStream(Uri address)
    {
        switch (over)
        {
            case GrpcOver.UnixSocket:
                string path = PathAddress.ToPath(address);
                if (!File.Exists(path))
                {
                    throw new TransportException($"could not connect to {AddressQuery.WithoutQuery(address)}: no such socket ({path} does not exist)");
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
                return async ct => await PipeEndpoint.ConnectAsync(address, IoMode.Async, ct).ConfigureAwait(false);
            default:
                return null;
        }
    }
}
