using System.Diagnostics;
using IpcBench.Core.Contract;
using IpcBench.Core.Kit.Processes;

namespace IpcBench.Transports.DBus;

/// <summary>
/// A dbus-daemon of one server's own, with Debian's session-bus configuration (EXTERNAL authentication: only its own
/// user may connect), listening on a socket file in the server's private directory. It runs under a small shell
/// supervisor that keeps the ServerProcess protocol: READY once the bus listens, and a stop (SIGTERM: the daemon
/// removes its socket) when its stdin closes, which is also what happens when the server dies, however it dies.
/// </summary>
internal static class PrivateBus
{
    public const string Daemon = "dbus-daemon";

    // $1: the socket path. The daemon writes its address to fd 3 once it listens; the supervisor polls for it.
    private const string Supervisor = """
        dbus-daemon --session --nofork --nopidfile --address="unix:path=$1" --print-address=3 3>"$1.address" </dev/null &
        daemon=$!
        trap 'kill $daemon 2>/dev/null; wait $daemon; rm -f "$1.address"' EXIT
        trap 'exit 0' TERM INT HUP
        until [ -s "$1.address" ]; do
          kill -0 $daemon 2>/dev/null || exit 1
          sleep 0.01
        done
        echo "READY unix:path=$1"
        cat >/dev/null
        """;

    /// <summary>Null when dbus-daemon can be started here; otherwise why not, and how to install it.</summary>
    public static string? UnsupportedReason =>
        OperatingSystem.IsWindows() ? "D-Bus is the Linux desktop's and system's bus; Windows has none"
        : (Environment.GetEnvironmentVariable("PATH") ?? "").Split(Path.PathSeparator).Any(d => d.Length > 0 && File.Exists(Path.Combine(d, Daemon))) ? null
        : $"{Daemon} is not installed (apt-get install dbus-daemon)";

    public static async Task<ServerProcess> StartAsync(string socketPath, TimeSpan readyTimeout, CancellationToken ct)
    {
        var info = new ProcessStartInfo("sh") { ArgumentList = { "-c", Supervisor, "ipcbench-dbus", socketPath } };
        // Its stderr (such as the daemon's notice that it could not raise its file limit) stays out
        // of the server's output; it is quoted when the bus fails to start.
        return await ServerProcess.StartAsync(info, $"the private {Daemon}", forwardStderr: null, readyTimeout, ct).ConfigureAwait(false);
    }

    public static string Address(string socketPath) => $"unix:path={socketPath}";
}
