namespace IpcBench.Kit.Files;

/// <summary>An address that names something a server must not touch, such as a file it did not make: exit 2.</summary>
public sealed class UnusableAddressException(string message) : ArgumentException(message);

/// <summary>Addresses that name a file: <c>uds:///tmp/x/s.sock</c>, <c>mmf:///dev/shm/x/channel</c>.</summary>
public static class PathAddress
{
    /// <summary>The file path an address names (<c>uds:///C:/x.sock</c> is <c>C:/x.sock</c> on Windows).</summary>
    public static string ToPath(Uri address)
    {
        string path = Uri.UnescapeDataString(address.AbsolutePath);
        if (OperatingSystem.IsWindows() && path.Length > 2 && path[0] == '/' && path[2] == ':')
        {
            path = path[1..];
        }
        if (path.Length <= 1 || path.EndsWith('/'))
        {
            throw new ArgumentException($"{address} names no file: write {address.Scheme}:///path/to/file");
        }
        return path;
    }

    /// <summary>
    /// Whether a socket file is at <paramref name="path"/> (false: nothing is). Anything else there is refused and left
    /// as it is: a server removes only what it can prove is a stale socket of its own kind.
    /// </summary>
    /// <exception cref="UnusableAddressException">Something other than a socket is at the path.</exception>
    public static bool HoldsSocket(string path) => FileKinds.Of(path) switch
    {
        FileKind.Missing => false,
        FileKind.Socket => true,
        var kind => throw Occupied($"{path} is {Describe(kind)}, not a socket"),
    };

    /// <summary>The refusal of a path that holds a file a server did not make; <paramref name="what"/> says what is there.</summary>
    public static UnusableAddressException Occupied(string what) =>
        new($"{what}: IpcBench removes only what it made, so it is left as it is; name a path that does not exist");

    public static string Describe(FileKind kind) => kind == FileKind.Regular ? "a regular file" : "not a regular file";

    // sun_path holds 108 bytes on Linux, 104 on macOS, including the terminating NUL.
    private const int MaxSocketPathBytes = 103;

    /// <summary>Refuses a Unix socket path longer than the OS can bind or connect to, in one line that names it.</summary>
    public static string CheckSocketPath(string path) => System.Text.Encoding.UTF8.GetByteCount(path) <= MaxSocketPathBytes ? path
        : throw new ArgumentException($"socket path is longer than {MaxSocketPathBytes} bytes, the OS limit: {path}");

    /// <summary>The address of a file path: <c>scheme:///path</c>, whatever characters the path holds.</summary>
    public static Uri ToUri(string scheme, string path)
    {
        // Escaped where a URI would read the path otherwise: '%' as an escape, '?' and '#' as its query and fragment, and
        // '\' as a separator, which it is on Windows alone.
        string p = path.Replace("%", "%25").Replace("?", "%3F").Replace("#", "%23");
        p = OperatingSystem.IsWindows() ? p.Replace('\\', '/') : p.Replace("\\", "%5C");
        return new Uri($"{scheme}://{(p.StartsWith('/') ? "" : "/")}{p}");
    }
}
