using System.Diagnostics;
using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Kit.Processes;

namespace IpcBench.Harness.Hosting;

/// <summary>
/// The server IpcBench starts for a client on this machine (ping without --server, each suite case): an
/// <c>ipcbench serve</c> child, beside the client or in namespaces of its own (<see cref="Hosting.Isolation"/>); for a
/// baseline, the handler in this process.
/// Disposing stops the server first, then removes its namespace.
/// </summary>
public sealed class LocalServer : IAsyncDisposable
{
    private readonly IServer? _inProcess;

    private readonly NetworkNamespace? _namespace;

    private LocalServer(ServerProcess? process, Isolation isolation, NetworkNamespace? space, IServer? inProcess = null)
    {
        Process = process;
        Isolation = isolation;
        _namespace = space;
        _inProcess = inProcess;
    }

    /// <summary>The <c>ipcbench serve</c> child; null for a baseline, whose server is in this process (<see cref="TransportFeatures.InProcess"/>).</summary>
    public ServerProcess? Process { get; }

    /// <summary>The address the server bound.</summary>
    public Uri Address => Process?.Address ?? _inProcess!.Address;

    /// <summary>Where the server runs, as seen from its client.</summary>
    public Isolation Isolation { get; }

    /// <summary>What <see cref="Isolation"/> is here, for a run's record: the namespace's addresses, gVisor's platform.</summary>
    public string IsolationDescription => Isolation switch
    {
        Isolation.None => "none (client and server side by side)",
        Isolation.Sandbox => GVisorSandbox.Description,
        _ => _namespace!.Description,
    };

    /// <param name="serverOptions">The options that shape both ends (<see cref="OptionScope.BothEnds"/>), put on the bind address.</param>
    /// <param name="cpu">The CPU to pin the server to, or null.</param>
    /// <param name="replySize">Replies of this size instead of echoes.</param>
    public static async Task<LocalServer> StartAsync(ITransport transport, Isolation isolation,
        IEnumerable<KeyValuePair<string, string>> serverOptions, int? cpu, Action<string>? forwardStderr, CancellationToken ct = default,
        int? replySize = null)
    {
        if (transport.Capabilities.Has(TransportFeatures.InProcess))
        {
            if (isolation != Isolation.None)
            {
                throw new ArgumentException($"{transport.Name} has no server process to isolate", nameof(isolation)); // callers ask Refuses first
            }
            // No process to start: the handler runs in this one. It answers no stats request, since its CPU is the client's.
            var handler = replySize is int size ? Handlers.FixedReply(size) : Handlers.Echo;
            var inProcess = await transport.StartServerAsync(AddressQuery.With(transport.DefaultAddress(), serverOptions), handler, ct).ConfigureAwait(false);
            return new LocalServer(null, Isolation.None, null, inProcess);
        }
        var space = isolation is Isolation.Netns or Isolation.Container ? await NetworkNamespace.CreateAsync(isolation, ct).ConfigureAwait(false) : null;
        try
        {
            var address = transport.DefaultAddress();
            var bind = AddressQuery.With(space?.BindAddress(address) ?? address, serverOptions);
            Func<ProcessStartInfo, ProcessStartInfo>? isolate = isolation == Isolation.Sandbox ? info => GVisorSandbox.Wrap(info, cpu)
                : space is null ? null : space.Wrap;
            // Outermost, so that the pid it tells the server is the process started here, which is killed and swept by.
            var launcher = isolation.HasOwnPids() ? info => TellStarterPid(isolate!(info)) : isolate;
            var process = await new ServeRequest(transport.Name) { Address = bind, Cpu = cpu, ReplySize = replySize }
                .StartAsync(forwardStderr, launcher: launcher, ct: ct).ConfigureAwait(false);
            return new LocalServer(process, isolation, space);
        }
        catch when (space is not null)
        {
            await space.DisposeAsync().ConfigureAwait(false);
            throw;
        }
    }

    /// <summary>
    /// <paramref name="info"/> as a command that tells the server the pid its starter knows it by
    /// (<see cref="PidNamespace.StarterPidVariable"/>): a shell's, which the command takes over by exec (and every launcher
    /// under it execs too), so that pid is the process started here.
    /// </summary>
    private static ProcessStartInfo TellStarterPid(ProcessStartInfo info) =>
        info.Under("/bin/sh", "-c", $"{PidNamespace.StarterPidVariable}=$$ exec \"$@\"", "sh");

    public async ValueTask DisposeAsync()
    {
        await (Process?.DisposeAsync() ?? _inProcess!.DisposeAsync()).ConfigureAwait(false);
        if (_namespace is not null)
        {
            await _namespace.DisposeAsync().ConfigureAwait(false);
        }
    }
}
