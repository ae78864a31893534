using System.Net.Sockets;
using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Kit.Files;
using IpcBench.Transports.Pipes;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.AspNetCore.Server.Kestrel.Https;
using Certificates = IpcBench.Kit.Security.Tls;

namespace IpcBench.Transports.Kestrel;

/// <summary>
/// Where a Kestrel-hosted transport listens and how its client reaches it: cleartext TCP, TCP with TLS, a Unix domain
/// socket, a Windows named pipe. A transport variant names one; what it carries over it is the transport's own.
/// </summary>
public abstract class KestrelEndpoint
{
    public static KestrelEndpoint Tcp { get; } = new TcpEndpoint();

    /// <summary>HTTPS (TLS 1.3) on TCP, with a certificate the server makes and the client pins (<see cref="Certificates"/>).</summary>
    public static KestrelEndpoint Tls { get; } = new TlsEndpoint();

    /// <summary>A Unix domain socket (Linux, macOS, and Windows 10 1803 and later): Kestrel's ListenUnixSocket.</summary>
    public static KestrelEndpoint UnixSocket { get; } = new UnixSocketEndpoint();

    /// <summary>A Windows named pipe: Kestrel's ListenNamedPipe, only on Windows.</summary>
    public static KestrelEndpoint NamedPipe { get; } = new NamedPipeEndpoint();

    public virtual string? UnsupportedReason => null;

    /// <summary>Whether a client on another host can reach it.</summary>
    public virtual bool CrossHost => false;

    /// <summary>The address options it adds (TLS's pin).</summary>
    public virtual IReadOnlyList<TransportOption> Options => [];

    public abstract Uri DefaultAddress(string scheme);

    /// <summary>Claims <paramref name="address"/> (a socket path, a pipe name, a certificate) for a server of <paramref name="scheme"/>.</summary>
    internal abstract ValueTask<Binding> BindAsync(string scheme, Uri address, CancellationToken ct);

    /// <summary>Sets a client's handler up to reach <paramref name="address"/>; returns the base URI its requests go to.</summary>
    public abstract string ConfigureClient(SocketsHttpHandler handler, Uri address, ITransport transport);

    /// <param name="Listen">Adds the one Kestrel endpoint, its protocols set by the given action.</param>
    /// <param name="Address">The address clients use, from the one Kestrel reports it bound.</param>
    /// <param name="Cleanup">Undoes the claim once the server has stopped, or could not start.</param>
    internal sealed record Binding(Action<KestrelServerOptions, Action<ListenOptions>> Listen, Func<string, Uri> Address, Action Cleanup);

    private sealed class TcpEndpoint : KestrelEndpoint
    {
        public override bool CrossHost => true;

        public override Uri DefaultAddress(string scheme) => new($"{scheme}://127.0.0.1:0");

        internal override ValueTask<Binding> BindAsync(string scheme, Uri address, CancellationToken ct)
        {
            var endpoint = KestrelHost.TcpEndpoint(address);
            return ValueTask.FromResult(new Binding((options, protocols) => options.Listen(endpoint, protocols), KestrelHost.TcpAddress(scheme), () => { }));
        }

        public override string ConfigureClient(SocketsHttpHandler handler, Uri address, ITransport transport) => $"http://{address.Authority}";
    }

    private sealed class TlsEndpoint : KestrelEndpoint
    {
        public override bool CrossHost => true;

        public override IReadOnlyList<TransportOption> Options => [Certificates.Pin];

        public override Uri DefaultAddress(string scheme) => new($"{scheme}://127.0.0.1:0");

        internal override ValueTask<Binding> BindAsync(string scheme, Uri address, CancellationToken ct)
        {
            var endpoint = KestrelHost.TcpEndpoint(address);
            var certificate = Certificates.CreateCertificate();
            return ValueTask.FromResult(new Binding(
                (options, protocols) => options.Listen(endpoint, listen =>
                {
                    protocols(listen);
                    listen.UseHttps(new HttpsConnectionAdapterOptions { ServerCertificate = certificate, SslProtocols = Certificates.Protocols });
                }),
                bound => Certificates.WithPin(KestrelHost.TcpAddress(scheme)(bound), certificate),
                certificate.Dispose));
        }

        public override string ConfigureClient(SocketsHttpHandler handler, Uri address, ITransport transport)
        {
            handler.SslOptions = Certificates.ClientOptions(Certificates.RequirePin(address, transport));
            return $"https://{address.Authority}";
        }
    }

    private sealed class UnixSocketEndpoint : KestrelEndpoint
    {
        public override string? UnsupportedReason => Socket.OSSupportsUnixDomainSockets ? null : "this OS has no Unix domain sockets";

        public override Uri DefaultAddress(string scheme) => PathAddress.ToUri(scheme, PrivateDirectory.DefaultPath($"{scheme}.sock"));

        internal override async ValueTask<Binding> BindAsync(string scheme, Uri address, CancellationToken ct)
        {
            var claim = await StaleSocketFile.ClaimAsync(PathAddress.ToPath(address), ct).ConfigureAwait(false);
            return new Binding((options, protocols) => options.ListenUnixSocket(claim.Path, protocols), _ => PathAddress.ToUri(scheme, claim.Path), claim.Release);
        }

        /// <summary>A ConnectCallback that opens the socket, as Microsoft's inter-process gRPC article shows; the authority is a formality.</summary>
        public override string ConfigureClient(SocketsHttpHandler handler, Uri address, ITransport transport)
        {
            string path = PathAddress.ToPath(address);
            if (!File.Exists(path))
            {
                throw new TransportException($"could not connect to {AddressQuery.WithoutQuery(address)}: no such socket ({path} does not exist)");
            }
            handler.ConnectCallback = async (_, ct) =>
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
            return "http://localhost";
        }
    }

    private sealed class NamedPipeEndpoint : KestrelEndpoint
    {
        public override string? UnsupportedReason => OperatingSystem.IsWindows() ? null
            : "Kestrel listens on named pipes only on Windows; a local channel here is a Unix domain socket";

        public override Uri DefaultAddress(string scheme) => new($"{scheme}://{PipeEndpoint.AutoName}");

        internal override async ValueTask<Binding> BindAsync(string scheme, Uri address, CancellationToken ct)
        {
            string pipe = await PipeEndpoint.ClaimNameAsync(AddressQuery.WithoutQuery(address), ct).ConfigureAwait(false);
            return new Binding((options, protocols) => options.ListenNamedPipe(pipe, protocols), _ => new Uri($"{scheme}://{pipe}"), () => { });
        }

        public override string ConfigureClient(SocketsHttpHandler handler, Uri address, ITransport transport)
        {
            handler.ConnectCallback = async (_, ct) => await PipeEndpoint.ConnectAsync(address, IoMode.Async, ct).ConfigureAwait(false);
            return "http://localhost";
        }
    }
}
