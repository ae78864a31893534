using IpcBench.Core;

namespace IpcBench.Transports.SharedMemory;

/// <summary>
/// Request/reply through a memory-mapped file shared by the two processes (LAYOUT.md): a request
/// area and a reply area, a sequence number per direction, and a choice of how to wait for it:
/// spin, hybrid (spin briefly, then sleep on a futex) or block (sleep at once). One client at a time.
/// </summary>
public sealed class MmfTransport : ITransport
{
    public const int DefaultCapacity = 1024 * 1024;
    public const WaitMode DefaultWait = WaitMode.Hybrid;

    public string Name => "mmf";

    public string Description => OperatingSystem.IsLinux()
        ? "memory-mapped file in /dev/shm (0600, private dir); waits: spin, hybrid (spin then futex), block (futex); one client at a time"
        : "memory-mapped file (0600, private dir); waits: spin, or hybrid/block sleeping in 1 ms steps (no futex here); one client at a time";

    public string? UnsupportedReason => null;

    /// <summary>Messages up to the default capacity; <c>?capacity=</c> sets another per channel.</summary>
    public TransportCapabilities Capabilities => new(TransportFeatures.Reliable | TransportFeatures.MessageBoundaries, DefaultCapacity);

    public IReadOnlyList<string> Variants => ["wait=spin", "wait=hybrid", "wait=block"];

    /// <summary>A fresh private directory in /dev/shm (memory, never a disk) where there is one.</summary>
    public Uri DefaultAddress() => PathAddress.ToUri(Name, Path.Combine(
        OperatingSystem.IsLinux() && Directory.Exists("/dev/shm") ? "/dev/shm/ipcbench-*" : PrivateDirectory.DefaultPattern, "channel"));

    public ValueTask<IServer> StartServerAsync(Uri address, RequestHandler handler, CancellationToken ct = default)
    {
        var (_, wait, capacity) = Parse(address);
        string path = PrivateDirectory.Resolve(PathAddress.ToPath(address), out string? ownDirectory);
        SharedChannel channel;
        try
        {
            RemoveIfStale(path);
            channel = SharedChannel.Create(path, capacity);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            PrivateDirectory.Remove(ownDirectory);
            throw new TransportException($"cannot create the channel {path}: {e.Message}", e);
        }
        catch
        {
            PrivateDirectory.Remove(ownDirectory);
            throw;
        }
        return ValueTask.FromResult<IServer>(new MmfServer(channel, PathAddress.ToUri(Name, path), handler, wait, () =>
        {
            TryDelete(path);
            PrivateDirectory.Remove(ownDirectory);
        }));
    }

    public ValueTask<IConnection> ConnectAsync(Uri address, CancellationToken ct = default)
    {
        var (options, wait, _) = Parse(address);
        var peer = EndpointOptions.WithoutQuery(address);
        string path = PathAddress.ToPath(address);
        if (!File.Exists(path))
        {
            throw new TransportException($"could not connect to {peer}: no such channel ({path} does not exist)");
        }
        SharedChannel channel;
        try
        {
            channel = SharedChannel.Open(path);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            throw new TransportException($"could not connect to {peer}: {e.Message}", e);
        }
        try
        {
            return ValueTask.FromResult<IConnection>(MmfConnection.Attach(channel, peer, wait, options.RequestTimeout, options.ConnectTimeout));
        }
        catch
        {
            channel.Dispose();
            throw;
        }
    }

    private static (EndpointOptions Options, WaitMode Wait, int Capacity) Parse(Uri address)
    {
        var options = EndpointOptions.Parse(address, "wait", "capacity");
        var query = EndpointOptions.Query(address);
        var wait = query.TryGetValue("wait", out string? w)
            ? w switch
            {
                "spin" => WaitMode.Spin,
                "hybrid" => WaitMode.Hybrid,
                "block" => WaitMode.Block,
                _ => throw new ArgumentException($"wait must be spin, hybrid or block, not '{w}'"),
            }
            : DefaultWait;
        int capacity = DefaultCapacity;
        if (query.TryGetValue("capacity", out string? c) && (!int.TryParse(c, out capacity) || capacity < 1024 || capacity > 1 << 30))
        {
            throw new ArgumentException($"capacity must be a number of bytes from 1024 to 1073741824, not '{c}'");
        }
        return (options, wait, capacity);
    }

    /// <summary>Replaces a channel file whose server is gone; refuses one whose server is alive.</summary>
    private static void RemoveIfStale(string path)
    {
        if (!File.Exists(path))
        {
            return;
        }
        int livePid = 0;
        try
        {
            using var existing = SharedChannel.Open(path);
            if (existing.State == SharedChannel.StateReady && Core.Hosting.ProcessLiveness.IsAlive(existing.ServerPid))
            {
                livePid = existing.ServerPid;
            }
        }
        catch (TransportException)
        {
            // Not a channel, or a torn one: a leftover either way.
        }
        if (livePid != 0)
        {
            throw new TransportException($"a server (process {livePid}) already serves the channel {path}");
        }
        File.Delete(path);
    }

    private static void TryDelete(string path)
    {
        try
        {
            File.Delete(path);
        }
        catch (IOException e)
        {
            Log.Warn($"could not remove {path}: {e.Message}");
        }
    }
}
