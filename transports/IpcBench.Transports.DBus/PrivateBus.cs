using System.Diagnostics;
using System.Text;
using IpcBench.Kit.Files;
using IpcBench.Kit.Processes;

namespace IpcBench.Transports.DBus;

/// <summary>
/// A dbus-daemon of one server's own, with Debian's session-bus configuration (EXTERNAL authentication: only its own
/// user may connect), listening on a socket file the server claimed. It runs under a small shell supervisor that keeps
/// the ServerProcess protocol: READY once the bus listens, and a stop (SIGTERM: the daemon removes its socket) when its
/// stdin closes, which is also what happens when the server dies, however it dies. The daemon is bound to the
/// supervisor by the kernel as well (setpriv's parent-death signal), so a supervisor killed on its own takes it along.
/// </summary>
internal sealed class PrivateBus : IAsyncDisposable
{
    public const string Daemon = "dbus-daemon";

    // $1: the bus address; $2: a file of the server's own, where the daemon writes its address once it listens.
    // A background job's stdin is /dev/null: the server's end is kept on fd 4 for the job that watches it. Waiting on
    // that job (not running it in the foreground) keeps TERM, INT and HUP handled at once.
    private const string Supervisor = """
        exec 4<&0
        setpriv --pdeathsig TERM dbus-daemon --session --nofork --nopidfile --address="$1" --print-address=3 3>"$2" </dev/null &
        daemon=$!
        trap 'kill $daemon $watch 2>/dev/null; wait $daemon' EXIT
        trap 'exit 0' TERM INT HUP
        until [ -s "$2" ]; do
          kill -0 $daemon 2>/dev/null || exit 1
          sleep 0.01
        done
        echo "READY $1"
        cat <&4 >/dev/null &
        watch=$!
        exec 4<&-
        wait $watch
        """;

    private readonly ServerProcess _process;
    private readonly string? _directory;

    private PrivateBus(ServerProcess process, string? directory)
    {
        _process = process;
        _directory = directory;
    }

    /// <summary>Null when dbus-daemon (and setpriv, util-linux's) can be started here; otherwise why not, and how to install them.</summary>
    public static string? UnsupportedReason =>
        OperatingSystem.IsWindows() ? "D-Bus is the Linux desktop's and system's bus; Windows has none"
        : Executable.Find(Daemon) is null ? $"{Daemon} is not installed (apt-get install dbus-daemon)"
        : Executable.Find("setpriv") is null ? "setpriv is not installed (apt-get install util-linux)"
        : null;

    /// <summary>The daemon's last stderr lines, for error messages.</summary>
    public string RecentErrors => _process.RecentErrors;

    /// <summary>Completes with the supervisor's exit code once it has exited.</summary>
    public Task<int> ExitAsync => _process.WaitForExitAsync(CancellationToken.None);

    public static async Task<PrivateBus> StartAsync(string socketPath, TimeSpan readyTimeout, CancellationToken ct)
    {
        // The daemon's address file goes in a directory of the server's own: no file beside the socket is touched, and
        // a killed server's is removed by whoever started it, as its other files are.
        string addressFile = PrivateDirectory.Resolve(PrivateDirectory.DefaultPath("bus-address"), out string? directory);
        var info = new ProcessStartInfo("sh") { ArgumentList = { "-c", Supervisor, "ipcbench-dbus", Address(socketPath), addressFile } };
        try
        {
            // Its stderr (such as the daemon's notice that it could not raise its file limit) stays out of the server's
            // output; it is quoted when the bus fails to start.
            var process = await ServerProcess.StartAsync(info, $"the private {Daemon}", forwardStderr: null, readyTimeout, ct).ConfigureAwait(false);
            return new PrivateBus(process, directory);
        }
        catch
        {
            PrivateDirectory.Remove(directory);
            throw;
        }
    }

    /// <summary>
    /// The D-Bus address of a socket file. D-Bus takes <c>[-0-9A-Za-z_/.\*]</c> as they are and every other byte
    /// %-escaped; Tmds.DBus.Protocol reads an escape as one character, so only an ASCII path can be named at all.
    /// </summary>
    public static string Address(string socketPath)
    {
        var address = new StringBuilder("unix:path=");
        foreach (char c in socketPath)
        {
            if (c > 0x7f)
            {
                throw new ArgumentException($"a dbus socket path is ASCII only (Tmds.DBus.Protocol reads no escaped UTF-8): {socketPath}");
            }
            if (char.IsAsciiLetterOrDigit(c) || "-_/.\\*".Contains(c))
            {
                address.Append(c);
            }
            else
            {
                address.Append('%').Append(((int)c).ToString("x2", System.Globalization.CultureInfo.InvariantCulture));
            }
        }
        return address.ToString();
    }

    public async ValueTask DisposeAsync()
    {
        await _process.DisposeAsync().ConfigureAwait(false);
        PrivateDirectory.Remove(_directory);
    }
}
