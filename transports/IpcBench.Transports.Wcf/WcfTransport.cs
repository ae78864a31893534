using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.ServiceModel;
using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Kit;
using IpcBench.Kit.Framing;
using IpcBench.Kit.Processes;

namespace IpcBench.Transports.Wcf;

/// <summary>
/// WCF NetTcp (SecurityMode.None, buffered, binary XML): the .NET WCF client, System.ServiceModel.NetTcp
/// on .NET 10, calling a WCF ServiceHost on the .NET Framework, the WCF services are migrating from:
/// run as it is on Windows, under Mono elsewhere. <c>ipcbench serve --transport wcf</c> starts that host
/// (IpcBench.WcfHost.exe, transports/IpcBench.Transports.Wcf.Host) and supervises it: its READY line is
/// the server's, and it stops with the serve process. The host echoes and answers the stats request; it
/// cannot run another request handler, which lives in .NET 10.
/// </summary>
public sealed class WcfTransport : ITransport
{
    private const string HostFile = "IpcBench.WcfHost.exe";
    private const string MonoInstall = "apt-get install mono-runtime libmono-system-servicemodel4.0a-cil";

    public TransportFamily Family => TransportFamily.Rpc;

    public string Name => "wcf";

    public string Description => OperatingSystem.IsWindows()
        ? "WCF NetTcp (no security, buffered): the .NET WCF client calling a .NET Framework ServiceHost"
        : "WCF NetTcp (no security, buffered): the .NET WCF client calling a .NET Framework ServiceHost under Mono, its receive without Mono's 50 ms sleep; "
          + "the client's connection buffer 64 KB, not NetTcp's 8 KB, which stalls every reply over 16 KB for 200 ms here (connection_buffer=8192 shows it); "
          + "the host keeps 32 MiB of Mono's large-object space mapped, which Mono would unmap and fault in again every few large calls (mono_los=0 shows it)";

    public string? NativeAotUnsupportedReason =>
        "the WCF client reads its contract by reflection and calls through DispatchProxy (publish warnings IL2104, IL3053 for System.ServiceModel.Primitives; a NativeAOT build finds \"zero operations\" in the contract)";

    public string? UnsupportedReason => !File.Exists(HostPath)
        ? $"{HostPath} is missing (build IpcBench.sln)"
        : OperatingSystem.IsWindows() ? null : Mono.Missing(MonoInstall);

    /// <summary>The host is a .NET Framework 4.8 program: on Windows it needs the Framework's CLR, which Nano Server lacks.</summary>
    public string? ServerUnsupportedReason => OperatingSystem.IsWindows()
        && !File.Exists(Path.Combine(Environment.GetFolderPath(Environment.SpecialFolder.Windows), "Microsoft.NET", "Framework64", "v4.0.30319", "clr.dll"))
            ? "its host is a .NET Framework 4.8 program and this Windows has no .NET Framework (Nano Server has none: docker/Dockerfile.windows's framework image has it)"
            : null;

    /// <summary>16 MiB, as the host's reader quotas allow (Bindings.MaxPayload there).</summary>
    public TransportCapabilities Capabilities =>
        new(TransportFeatures.Reliable | TransportFeatures.MessageBoundaries | TransportFeatures.CrossHost, LengthPrefix.DefaultMaxPayload)
        {
            // Seen in the conformance suite: four concurrent sessions to Mono's NetTcp host get replies they cannot
            // decode ("XmlDictionaryString ID 0 not defined in the XmlBinaryReaderSession") or none at all.
            OneClientAtATime = OperatingSystem.IsWindows() ? null : "Mono's NetTcp host garbles replies to concurrent sessions",
            EchoesOnly = "the WCF host is a .NET Framework program of its own with its own echo service",
        };

    public IReadOnlyList<TransportOption> Options => [ConnectionBuffer, MonoLargeObjectSpace];

    /// <summary>
    /// The client's <c>ConnectionBufferSize</c>, which the .NET client also makes its socket's SO_RCVBUF and SO_SNDBUF.
    /// NetTcp's default, 8 KB (TcpTransportBindingElement's, which NetTcpBinding keeps), is a 16 KB receive window on
    /// Linux, less than one loopback segment (65,483 B): a larger reply then waits for the server's 200 ms persist
    /// timer, 1.25 s at 100 KB (docs/transports.md, "WCF on Linux"). That measures a stall, not WCF, so the default here is 64 KB,
    /// a window of two segments; the bytes on the wire are the same either way, and 8192 still shows the stall.
    /// </summary>
    private static readonly TransportOption ConnectionBuffer = TransportOption.Number(
        "connection_buffer", "the WCF client's ConnectionBufferSize in bytes (NetTcp's default, 8192, stalls replies over 16 KB on Linux)",
        "65536", OptionScope.Client, 512, 1 << 26)
        with { Compared = ["8192", "65536"] };

    /// <summary>
    /// MiB of Mono's large-object space the host keeps mapped (LargeObjectSpace in the host). Mono unmaps every empty
    /// 1 MiB section of it at each major collection, so with 0 a host under Mono faults in afresh nearly every large
    /// array it makes: 100 KB calls cost it several times the CPU (docs/transports.md, "WCF on Linux"). No effect on Windows.
    /// </summary>
    private static readonly TransportOption MonoLargeObjectSpace = TransportOption.Number(
        "mono_los", "MiB of Mono's large-object space the host keeps mapped (0: Mono's own way, which unmaps it at every major collection)",
        "32", OptionScope.BothEnds, 0, 1024);

    public Uri DefaultAddress() => new("wcf://127.0.0.1:0");

    /// <summary>In a folder of its own (see the project file): beside ipcbench, Mono would take the .NET 10 client's System.ServiceModel.dll.</summary>
    private static string HostPath => Path.Combine(AppContext.BaseDirectory, "wcf-host", HostFile);

    public async ValueTask<IServer> StartServerAsync(Uri address, RequestHandler handler, CancellationToken ct = default)
    {
        var values = OptionValues.Parse(address, this); // the client's option may be there too, and is checked
        if (UnsupportedReason is { } reason)
        {
            throw new TransportException($"wcf does not run here: {reason}");
        }
        string bind = address.DnsSafeHost == "localhost" ? "127.0.0.1" : address.DnsSafeHost; // as the Kestrel transports read it
        if (!IPAddress.TryParse(bind, out var ip))
        {
            throw new ArgumentException($"a wcf server binds an IP address (such as 127.0.0.1), not '{address.Host}'");
        }
        int port = address.Port > 0 ? address.Port : FreePort(ip);
        var info = OperatingSystem.IsWindows() ? new ProcessStartInfo(HostPath) : Mono.StartInfo(HostPath);
        info.ArgumentList.Add(ip.ToString());
        info.ArgumentList.Add(port.ToString(System.Globalization.CultureInfo.InvariantCulture));
        info.ArgumentList.Add(values[MonoLargeObjectSpace]);
        var host = await ServerProcess.StartAsync(info, "the wcf host", Log.Warn, ct: ct).ConfigureAwait(false);
        return new WcfServer(host, new Uri($"wcf://{new IPEndPoint(ip, port)}")); // an IPv6 address in brackets
    }

    public ValueTask<IConnection> ConnectAsync(Uri address, CancellationToken ct = default)
    {
        var values = OptionValues.Parse(address, this);
        var peer = AddressQuery.WithoutQuery(address);
        return ValueTask.FromResult<IConnection>(WcfConnection.Open(peer, WcfEndpoint.NetTcp(peer), Capabilities.MaxMessageSize,
            EndpointOptions.From(values), values.Number(ConnectionBuffer)));
    }

    /// <summary>A port nothing listens on now. WCF binds the port it is given, so the host is told one.</summary>
    private static int FreePort(IPAddress ip)
    {
        using var probe = new Socket(ip.AddressFamily, SocketType.Stream, ProtocolType.Tcp);
        probe.Bind(new IPEndPoint(ip, 0));
        return ((IPEndPoint)probe.LocalEndPoint!).Port;
    }

    /// <summary>The host's process, which is the server.</summary>
    private sealed class WcfServer(ServerProcess host, Uri address) : IServer
    {
        public Uri Address { get; } = address;

        public Task<string> Lost { get; } = HostExitAsync(host);

        private static async Task<string> HostExitAsync(ServerProcess host) =>
            $"the wcf host exited with code {await host.WaitForExitAsync(CancellationToken.None).ConfigureAwait(false)}: {host.RecentErrors}".TrimEnd(' ', ':');

        public ValueTask DisposeAsync() => host.DisposeAsync();
    }
}
