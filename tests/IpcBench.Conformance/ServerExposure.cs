using System.Globalization;
using System.Net;
using System.Runtime.Versioning;
using IpcBench.Kit.Processes;

namespace IpcBench.Conformance;

/// <summary>
/// What a server process (and every process under it) offers to others, as Linux's /proc tells it: the TCP addresses it
/// listens on, the UDP addresses it is bound to, the Unix socket files it listens on and the shared-memory files it maps.
/// </summary>
[SupportedOSPlatform("linux")]
public sealed record ServerExposure(IReadOnlyList<IPEndPoint> Listening, IReadOnlyList<IPEndPoint> Bound,
    IReadOnlyList<string> SocketFiles, IReadOnlyList<string> MappedFiles)
{
    /// <summary>Every internet address the server can be reached at: <see cref="Listening"/> and <see cref="Bound"/>.</summary>
    public IEnumerable<IPEndPoint> Internet => Listening.Concat(Bound);

    /// <summary>The socket files that are the server's own: not the runtime's diagnostics port (dotnet-diagnostic-PID-...-socket).</summary>
    public IEnumerable<string> ServerSocketFiles => SocketFiles.Where(f => !Path.GetFileName(f).StartsWith("dotnet-diagnostic-", StringComparison.Ordinal));

    private const string TcpListen = "0A";

    public static ServerExposure Of(int pid)
    {
        int[] tree = [pid, .. ProcessTree.Descendants(pid)];
        var inodes = tree.SelectMany(SocketInodes).ToHashSet();
        // The server's own network namespace: /proc/PID/net, not /proc/net.
        var listening = new[] { "tcp", "tcp6" }.SelectMany(table => Rows($"/proc/{pid}/net/{table}"))
            .Where(row => row[3] == TcpListen && inodes.Contains(row[9])).Select(row => Endpoint(row[1])).ToList();
        var bound = new[] { "udp", "udp6" }.SelectMany(table => Rows($"/proc/{pid}/net/{table}"))
            .Where(row => inodes.Contains(row[9])).Select(row => Endpoint(row[1])).ToList();
        var socketFiles = Rows($"/proc/{pid}/net/unix")
            .Where(row => row.Length > 7 && inodes.Contains(row[6]) && row[7].StartsWith('/'))
            .Select(row => row[7]).Distinct().ToList();
        var mapped = tree.SelectMany(p => Lines($"/proc/{p}/maps"))
            .Select(line => line.Split(' ', 6, StringSplitOptions.RemoveEmptyEntries))
            .Where(f => f.Length == 6 && f[5].StartsWith("/dev/shm/"))
            .Select(f => f[5].Trim()).Distinct().ToList();
        return new ServerExposure(listening, bound, socketFiles, mapped);
    }

    /// <summary>Whether others than the owner can reach <paramref name="path"/>: the file grants them nothing, or its folder does not let them in.</summary>
    public static bool OwnerOnly(string path)
    {
        const UnixFileMode others = UnixFileMode.GroupRead | UnixFileMode.GroupWrite | UnixFileMode.GroupExecute
            | UnixFileMode.OtherRead | UnixFileMode.OtherWrite | UnixFileMode.OtherExecute;
        return (File.GetUnixFileMode(path) & others) == 0 || (File.GetUnixFileMode(Path.GetDirectoryName(path)!) & others) == 0;
    }

    public static bool IsLoopback(IPAddress address) =>
        IPAddress.IsLoopback(address.IsIPv4MappedToIPv6 ? address.MapToIPv4() : address);

    private static IEnumerable<string> SocketInodes(int pid)
    {
        foreach (string fd in Directory.EnumerateFileSystemEntries($"/proc/{pid}/fd"))
        {
            string? target = null;
            try
            {
                target = new FileInfo(fd).LinkTarget;
            }
            catch (IOException)
            {
                // closed while we looked
            }
            if (target is not null && target.StartsWith("socket:["))
            {
                yield return target["socket:[".Length..^1];
            }
        }
    }

    private static IEnumerable<string[]> Rows(string table) =>
        Lines(table).Skip(1).Select(line => line.Split(' ', StringSplitOptions.RemoveEmptyEntries));

    private static string[] Lines(string path) => File.Exists(path) ? File.ReadAllLines(path) : [];

    /// <summary>"0100007F:1F90" (IPv4) or 32 hex digits and a port (IPv6): each 32-bit word in the machine's byte order.</summary>
    private static IPEndPoint Endpoint(string hex)
    {
        string[] parts = hex.Split(':');
        byte[] bytes = new byte[parts[0].Length / 2];
        for (int word = 0; word < bytes.Length / 4; word++)
        {
            uint value = uint.Parse(parts[0].AsSpan(word * 8, 8), NumberStyles.HexNumber);
            BitConverter.TryWriteBytes(bytes.AsSpan(word * 4, 4), value);
        }
        // An IPv6 socket bound to an IPv4-mapped address (Akka's DotNetty binds ::ffff:127.0.0.1) is reached at the IPv4 one:
        // a .NET IPv6 socket, IPv6-only by default, cannot connect to a mapped address.
        var address = new IPAddress(bytes);
        return new IPEndPoint(address.IsIPv4MappedToIPv6 ? address.MapToIPv4() : address, int.Parse(parts[1], NumberStyles.HexNumber));
    }
}
