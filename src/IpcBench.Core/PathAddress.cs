namespace IpcBench.Core;

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

    /// <summary>The address of a file path: <c>scheme:///path</c>.</summary>
    public static Uri ToUri(string scheme, string path)
    {
        string p = path.Replace('\\', '/');
        return new Uri($"{scheme}://{(p.StartsWith('/') ? "" : "/")}{p}");
    }
}
