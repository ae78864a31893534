using System.Diagnostics;
using System.Globalization;
using IpcBench.Kit.Processes;

namespace IpcBench.Harness.Hosting;

/// <summary>
/// An <c>ipcbench serve</c> process as the harness asks for one: typed, and spelled as a command line in this one place.
/// The CLI's serve verb declares its options under these names, so the two cannot drift apart.
/// </summary>
/// <param name="Transport">The transport's name.</param>
public sealed record ServeRequest(string Transport)
{
    public const string Verb = "serve";
    public const string TransportOption = "--transport";
    public const string AddressOption = "--address";
    public const string CpuOption = "--cpu";
    public const string ReplySizeOption = "--reply-size";
    public const string ParentPidOption = "--parent-pid";

    /// <summary>The address to bind; null for the transport's default.</summary>
    public Uri? Address { get; init; }

    /// <summary>The CPU to pin the server to; null to leave it to the OS.</summary>
    public int? Cpu { get; init; }

    /// <summary>Replies of this size instead of echoes.</summary>
    public int? ReplySize { get; init; }

    /// <summary>The process whose end stops the server (and whose stdin closing does): the one that asks, by default.</summary>
    public int ParentPid { get; init; } = Environment.ProcessId;

    public IEnumerable<string> Arguments()
    {
        yield return Verb;
        yield return TransportOption; yield return Transport;
        if (Address is not null)
        {
            yield return AddressOption; yield return Address.AbsoluteUri; // ToString() unescapes: a folder "x%41" would come back as "xA"
        }
        if (Cpu is int cpu)
        {
            yield return CpuOption; yield return Invariant(cpu);
        }
        if (ReplySize is int reply)
        {
            yield return ReplySizeOption; yield return Invariant(reply);
        }
        yield return ParentPidOption; yield return Invariant(ParentPid);
    }

    /// <summary>Starts this <c>ipcbench serve</c> and waits for it to be ready.</summary>
    /// <param name="forwardStderr">Where the server's stderr lines go as they arrive (null: kept only).</param>
    /// <param name="launcher">Turns the server's command into the one to run, e.g. inside a <see cref="NetworkNamespace"/>.</param>
    public Task<ServerProcess> StartAsync(Action<string>? forwardStderr = null, TimeSpan? readyTimeout = null,
        Func<ProcessStartInfo, ProcessStartInfo>? launcher = null, CancellationToken ct = default)
    {
        var info = StartInfo();
        return ServerProcess.StartAsync(launcher?.Invoke(info) ?? info, $"the {Transport} server", forwardStderr, readyTimeout, ct);
    }

    /// <summary>How to start it: the <c>ipcbench</c> that <see cref="ServerCommand"/> finds, with <see cref="Arguments"/>.</summary>
    public ProcessStartInfo StartInfo() => ServerCommand.Resolve().StartInfo(Arguments());

    private static string Invariant(int n) => n.ToString(CultureInfo.InvariantCulture);
}
