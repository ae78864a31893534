using System.Net;
using IpcBench.Core;

namespace IpcBench.Transports.Grpc;

/// <summary>
/// gRPC unary calls (Protos/echo.proto) on Kestrel and HttpClient: <c>grpc</c> over cleartext HTTP/2 on
/// TCP, <c>grpc-uds</c> over a Unix domain socket (Kestrel's ListenUnixSocket, a ConnectCallback on the
/// client), which is what "gRPC over pipes" is on Linux and macOS. The wire protocol is gRPC's, so any
/// gRPC client can call these servers; the grpc-dotnet packages themselves cannot be restored here.
/// </summary>
public sealed class GrpcTransport(bool unixSocket) : ITransport
{
    public string Name => unixSocket ? "grpc-uds" : "grpc";

    public string Description => unixSocket
        ? "gRPC (HTTP/2 h2c, unary) over a Unix domain socket: Kestrel ListenUnixSocket + HttpClient ConnectCallback"
        : "gRPC (HTTP/2 h2c, unary) over TCP: Kestrel + HttpClient";

    public string? UnsupportedReason =>
        unixSocket && !System.Net.Sockets.Socket.OSSupportsUnixDomainSockets ? "this OS has no Unix domain sockets" : null;

    public TransportCapabilities Capabilities => new(
        TransportFeatures.Reliable | TransportFeatures.MessageBoundaries | (unixSocket ? 0 : TransportFeatures.CrossHost),
        4 * 1024 * 1024); // gRPC's customary default message limit

    /// <summary>HttpClient and Kestrel are async through and through: there is no blocking mode to vary.</summary>
    public IReadOnlyList<string> Variants => [];

    public Uri DefaultAddress() => unixSocket
        ? PathAddress.ToUri(Name, PrivateDirectory.DefaultPath("grpc.sock"))
        : new Uri($"{Name}://127.0.0.1:0");

    public async ValueTask<IServer> StartServerAsync(Uri address, RequestHandler handler, CancellationToken ct = default)
    {
        CheckOptions(address);
        int max = Capabilities.MaxMessageSize;
        if (!unixSocket)
        {
            var endpoint = new IPEndPoint(IPAddress.Parse(address.Host == "localhost" ? "127.0.0.1" : address.Host), Math.Max(address.Port, 0));
            return await GrpcServer.StartAsync(
                options => options.Listen(endpoint, l => l.Protocols = Microsoft.AspNetCore.Server.Kestrel.Core.HttpProtocols.Http2),
                bound => new Uri($"{Name}://{new Uri(bound).Authority}"), handler, max, () => { }, ct).ConfigureAwait(false);
        }
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
        return await GrpcServer.StartAsync(
            options => options.ListenUnixSocket(path, l => l.Protocols = Microsoft.AspNetCore.Server.Kestrel.Core.HttpProtocols.Http2),
            _ => PathAddress.ToUri(Name, path), handler, max,
            () =>
            {
                File.Delete(path);
                PrivateDirectory.Remove(ownDirectory);
            }, ct).ConfigureAwait(false);
    }

    public async ValueTask<IConnection> ConnectAsync(Uri address, CancellationToken ct = default)
    {
        var options = CheckOptions(address);
        var peer = EndpointOptions.WithoutQuery(address);
        string? socketPath = unixSocket ? PathAddress.ToPath(address) : null;
        if (socketPath is not null && !File.Exists(socketPath))
        {
            throw new TransportException($"could not connect to {peer}: no such socket ({socketPath} does not exist)");
        }
        var connection = new GrpcConnection(peer, socketPath, options.ConnectTimeout, options.ConnectTimeout, Capabilities.MaxMessageSize);
        await ConnectProbe.ProbeAsync(connection, peer, options.ConnectTimeout, ct).ConfigureAwait(false); // HTTP/2 connects on the first call
        connection.Timeout = options.RequestTimeout;
        return connection;
    }

    /// <summary>The common options; <c>io</c> does not apply (Kestrel and HttpClient are async only) and is ignored.</summary>
    private static EndpointOptions CheckOptions(Uri address) => EndpointOptions.Parse(address);
}
