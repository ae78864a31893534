using System.Diagnostics;
using System.Globalization;
using System.Security.Cryptography;
using IpcBench.Kit;
using IpcBench.Kit.Processes;

namespace IpcBench.Harness.Hosting;

/// <summary>
/// A fresh Linux network namespace joined to this one by a veth pair, as Docker's bridge joins a container: the
/// server runs inside (<see cref="Wrap"/>), the client outside, and traffic crosses the pair on a /30 of the
/// link-local range (169.254.0.0/16), never a private or public one. Files are not isolated, so socket-file and
/// shared-memory transports still meet on the same paths; for <see cref="Isolation.Container"/> the server also gets PID,
/// IPC, UTS and mount namespaces of its own, with a /dev/shm of its own, where shared memory no longer meets.
/// <para>Removal is a janitor's, a shell started first in a session of its own: it waits for its stdin to close
/// (on <see cref="DisposeAsync"/>, or when this process dies, however it dies) and then stops what runs in the
/// namespace, deletes it and the host end of the pair. So nothing is left behind even by a killed run. A kill of the
/// whole process tree takes the janitor too (a test host's hang timeout does): the next namespace made here then
/// removes what such a run left, once its pid is gone (<see cref="RemoveStaleAsync"/>).</para>
/// </summary>
public sealed class NetworkNamespace : IAsyncDisposable
{
    private static readonly TimeSpan CommandTimeout = TimeSpan.FromSeconds(10);

    private readonly Process _janitor;

    private NetworkNamespace(Isolation isolation, string name, string hostAddress, string innerAddress, Process janitor)
    {
        Isolation = isolation;
        Name = name;
        HostAddress = hostAddress;
        InnerAddress = innerAddress;
        _janitor = janitor;
    }

    /// <summary><see cref="Isolation.Netns"/>, or <see cref="Isolation.Container"/> when the server gets more namespaces than the network's.</summary>
    public Isolation Isolation { get; }

    /// <summary>"ipcbench-PID-XXXXXX": the run that made it can be told from its name.</summary>
    public string Name { get; }

    public string HostAddress { get; }

    /// <summary>The namespace's address, which a server inside binds to.</summary>
    public string InnerAddress { get; }

    /// <summary>How a run records it: "netns (ipcbench-PID-XXXXXX: 169.254.a.b to 169.254.a.c over veth)".</summary>
    public string Description => $"{Isolation.Name()} ({Name}: {HostAddress} to {InnerAddress} over veth"
        + (Isolation == Isolation.Container ? "; own PID, IPC, UTS and mount namespaces and /dev/shm)" : ")");

    /// <summary>Null when network namespaces can be made here; else why not.</summary>
    public static string? UnsupportedReason =>
        !OperatingSystem.IsLinux() ? "network namespaces are Linux's"
        : !Environment.IsPrivilegedProcess ? "making a network namespace needs root"
        : null;

    /// <param name="isolation"><see cref="Isolation.Netns"/> or <see cref="Isolation.Container"/>.</param>
    public static async Task<NetworkNamespace> CreateAsync(Isolation isolation, CancellationToken ct = default)
    {
        if (isolation == Isolation.None)
        {
            throw new ArgumentOutOfRangeException(nameof(isolation), "a namespace isolates");
        }
        if (UnsupportedReason is { } reason)
        {
            throw new PlatformNotSupportedException(reason);
        }
        await RemoveStaleAsync().ConfigureAwait(false);
        string id = Convert.ToHexStringLower(RandomNumberGenerator.GetBytes(3));
        string name = $"ipcbench-{Environment.ProcessId}-{id}";
        string hostLink = HostLink(id), innerLink = $"ipcb{id}n";
        // 169.254.100.0 to 169.254.199.255 in /30s, clear of the ranges Docker is given here (169.254.76.0/24 and the like).
        int third = 100 + RandomNumberGenerator.GetInt32(100), fourth = 4 * RandomNumberGenerator.GetInt32(64);
        string prefix = $"169.254.{third}.";
        string hostAddress = prefix + (fourth + 1).ToString(CultureInfo.InvariantCulture);
        string innerAddress = prefix + (fourth + 2).ToString(CultureInfo.InvariantCulture);

        var janitor = StartJanitor(name, hostLink);
        var created = new NetworkNamespace(isolation, name, hostAddress, innerAddress, janitor);
        try
        {
            await IpAsync(ct, "netns", "add", name).ConfigureAwait(false);
            // 'ip netns exec' puts /etc/netns/NAME/hosts in place of /etc/hosts inside: the namespace's addresses get names
            // there, for servers that look their own address up (Mono's NetTcp listener does, and fails without one).
            Directory.CreateDirectory(HostsDirectory(name));
            await File.WriteAllTextAsync(Path.Combine(HostsDirectory(name), "hosts"),
                $"127.0.0.1 localhost\n{innerAddress} ipcbench-server\n{hostAddress} ipcbench-client\n", ct).ConfigureAwait(false);
            await IpAsync(ct, "link", "add", hostLink, "type", "veth", "peer", "name", innerLink).ConfigureAwait(false);
            await IpAsync(ct, "link", "set", innerLink, "netns", name).ConfigureAwait(false);
            await IpAsync(ct, "addr", "add", hostAddress + "/30", "dev", hostLink).ConfigureAwait(false);
            await IpAsync(ct, "link", "set", hostLink, "up").ConfigureAwait(false);
            await IpAsync(ct, "-n", name, "addr", "add", innerAddress + "/30", "dev", innerLink).ConfigureAwait(false);
            await IpAsync(ct, "-n", name, "link", "set", innerLink, "up").ConfigureAwait(false);
            await IpAsync(ct, "-n", name, "link", "set", "lo", "up").ConfigureAwait(false);
            return created;
        }
        catch
        {
            await created.DisposeAsync().ConfigureAwait(false);
            throw;
        }
    }

    /// <summary>
    /// <paramref name="info"/> as a command that runs inside the namespace (<c>ip netns exec</c> keeps its pid and stdio); for a
    /// container, under <c>unshare</c> too, whose child is the PID namespace's init: it gets SIGKILL if unshare is killed.
    /// </summary>
    public ProcessStartInfo Wrap(ProcessStartInfo info)
    {
        // For a container, unshare makes the mounts private to the new mount namespace, so the tmpfs stays inside. The rest
        // of the file system is shared, as a container's bind mounts are: the server's program and socket files stay in reach.
        const string setup = "mount -t tmpfs -o mode=1777 ipcbench-shm /dev/shm && hostname ipcbench-server && exec \"$0\" \"$@\"";
        string[] container = Isolation == Isolation.Container
            ? ["unshare", "--pid", "--fork", "--kill-child", "--mount-proc", "--ipc", "--uts", "--", "sh", "-c", setup]
            : [];
        return info.Under(["ip", "netns", "exec", Name, .. container]);
    }

    /// <summary>A bind address for a server inside: the loopback host of <paramref name="address"/> replaced by the namespace's address.</summary>
    public Uri BindAddress(Uri address)
    {
        if (!address.IsLoopback || string.IsNullOrEmpty(address.Host))
        {
            return address; // a path (uds, pipe, mmf): files are shared
        }
        // Replaced as text: UriBuilder would add a path ("tcp://h:0/") that some parsers take as part of the address.
        string text = address.OriginalString;
        int host = text.IndexOf(address.Host, text.IndexOf("://", StringComparison.Ordinal) + 3, StringComparison.OrdinalIgnoreCase);
        return new Uri(text[..host] + InnerAddress + text[(host + address.Host.Length)..]);
    }

    /// <summary>The host end of namespace <c>ipcbench-PID-id</c>'s veth pair.</summary>
    private static string HostLink(string id) => $"ipcb{id}h";

    /// <summary>Where 'ip netns add' keeps the namespaces it names.</summary>
    private const string NamespacesDirectory = "/run/netns";

    /// <summary>
    /// Removes the namespaces named "ipcbench-PID-id" whose PID is gone: runs that died with their janitor. A namespace of
    /// a live process is never touched.
    /// </summary>
    public static async Task RemoveStaleAsync()
    {
        if (!Directory.Exists(NamespacesDirectory))
        {
            return;
        }
        foreach (string name in Directory.EnumerateFiles(NamespacesDirectory, "ipcbench-*").Select(f => Path.GetFileName(f)))
        {
            string[] parts = name.Split('-');
            // The name goes into the janitor's script: only one of CreateAsync's own shape is taken.
            if (parts is [_, var owner, var id] && id.Length == 6 && id.All(char.IsAsciiHexDigitLower)
                && int.TryParse(owner, NumberStyles.None, CultureInfo.InvariantCulture, out int pid) && !ProcessLiveness.IsAlive(pid))
            {
                Log.Warn($"removing network namespace {name}, left by a run that is gone (pid {pid})");
                await FinishAsync(StartJanitor(name, HostLink(id)), name).ConfigureAwait(false);
            }
        }
    }

    /// <summary>The namespace's own configuration files, which 'ip netns exec' mounts over /etc's.</summary>
    private static string HostsDirectory(string name) => $"/etc/netns/{name}";

    private static Process StartJanitor(string name, string hostLink)
    {
        // Signals to the terminal's process group do not reach it (setsid), and it ignores the rest but KILL:
        // whatever ends this process, the janitor still cleans up. What still runs inside gets SIGTERM first and
        // 5 s to go (a server removes its socket files and shared memory then), SIGKILL after. It writes nowhere: holding
        // this process's stdout and stderr, it would keep whoever reads them waiting for its cleanup after we exit.
        string script = $$"""
            exec >/dev/null 2>&1
            trap '' INT TERM HUP
            cat >/dev/null
            inside() { ip netns pids {{name}} 2>/dev/null; }
            if [ -n "$(inside)" ]; then
              kill $(inside) 2>/dev/null
              i=0; while [ $i -lt 50 ] && [ -n "$(inside)" ]; do sleep 0.1; i=$((i + 1)); done
              kill -9 $(inside) 2>/dev/null
            fi
            ip netns del {{name}} 2>/dev/null
            ip link del {{hostLink}} 2>/dev/null
            rm -rf {{HostsDirectory(name)}}
            exit 0
            """;
        var info = new ProcessStartInfo("setsid") { ArgumentList = { "sh", "-c", script }, RedirectStandardInput = true, UseShellExecute = false };
        return Process.Start(info) ?? throw new InvalidOperationException("could not start the namespace's janitor (setsid sh)");
    }

    private static async Task IpAsync(CancellationToken ct, params string[] args)
    {
        string command = $"ip {string.Join(' ', args)}";
        var ended = await BoundedChild.RunAsync(new ProcessStartInfo("ip", args), command, CommandTimeout, ct).ConfigureAwait(false);
        if (ended.ExitCode != 0)
        {
            throw new InvalidOperationException($"{command} failed: {ended.Stderr.Trim()}");
        }
    }

    /// <summary>Lets the janitor remove the namespace and the pair, and waits for it.</summary>
    public async ValueTask DisposeAsync() => await FinishAsync(_janitor, Name).ConfigureAwait(false);

    /// <summary>Closes <paramref name="janitor"/>'s stdin, its signal to remove namespace <paramref name="name"/>, and waits for it.</summary>
    private static async Task FinishAsync(Process janitor, string name)
    {
        try
        {
            janitor.StandardInput.Close();
            using var timeout = new CancellationTokenSource(CommandTimeout);
            await janitor.WaitForExitAsync(timeout.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            Log.Warn($"the janitor of network namespace {name} did not finish within {CommandTimeout.TotalSeconds:0} s");
        }
        finally
        {
            janitor.Dispose();
        }
    }
}
