using System.Diagnostics;
using System.Globalization;
using IpcBench.Contract;
using IpcBench.Kit.Processes;

namespace IpcBench.Harness.Hosting;

/// <summary>
/// <see cref="Isolation.Sandbox"/>: the server under gVisor (<c>runsc do</c>), whose kernel in user space takes every
/// system call the server makes, on the ptrace platform (no KVM needed). The sandbox has no network (<c>runsc do</c>
/// would make it a 192.168.10.x one, and every network IpcBench makes is link-local) and sees the host's files without
/// the overlay <c>runsc do</c> puts on them, so socket files the server creates are the host's (<c>--host-uds=all</c>):
/// transports that meet on a socket file cross; network ones cross in docker/run.sh's sandbox pairs instead.
/// </summary>
public static class GVisorSandbox
{
    /// <summary>How a run records this isolation.</summary>
    public const string Description = "sandbox (gVisor: runsc do, ptrace platform, no network; the host's files and socket files)";

    /// <summary>Why no server can be sandboxed here, or null when one can.</summary>
    public static string? UnsupportedReason =>
        !OperatingSystem.IsLinux() ? "gVisor runs on Linux"
        : !Environment.IsPrivilegedProcess ? "runsc do needs root"
        : Runsc is null ? "gVisor's runsc is not installed (Debian: apt-get install runsc)"
        : null;

    /// <summary>Why <paramref name="transport"/>'s server cannot be sandboxed without Docker, or null when it can.</summary>
    public static string? Refuses(ITransport transport) =>
        transport.Capabilities.Has(TransportFeatures.CrossHost)
            ? "a sandbox started without Docker gets no link-local network (runsc do makes a 192.168.10.x one): its network "
                + "transports run sandboxed in docker/run.sh's docker-sandbox-bridge pairs"
        : transport.DefaultAddress().AbsolutePath.StartsWith("/dev/shm/", StringComparison.Ordinal)
            ? "gVisor maps the shared memory but keeps futexes to itself: no wake-up crosses, each round trip waits out a poll"
        : null;

    /// <summary>
    /// <paramref name="info"/> as a command that runs in a sandbox, its threads on <paramref name="cpu"/> when given: the
    /// server's own pinning pins only gVisor's idea of a CPU. The server is the sandbox's init, so its stdin (which the
    /// sandbox passes on) is what tells it its client is gone, as in <see cref="Isolation.Container"/>. taskset and runsc
    /// each exec, so the process started is the one to kill.
    /// </summary>
    public static ProcessStartInfo Wrap(ProcessStartInfo info, int? cpu)
    {
        string[] pin = cpu is int n ? ["taskset", "-c", n.ToString(CultureInfo.InvariantCulture)] : [];
        string[] runsc = [Runsc!, "--network=none", "--host-uds=all", "--platform=ptrace", "do", "-force-overlay=false", "-quiet"];
        return info.Under([.. pin, .. runsc]);
    }

    private static string? Runsc { get; } = Executable.Find("runsc");
}
