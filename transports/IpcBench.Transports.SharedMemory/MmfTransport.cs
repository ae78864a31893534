using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Kit.Files;

namespace IpcBench.Transports.SharedMemory;

/// <summary>
/// Request/reply through a memory-mapped file shared by the two processes (LAYOUT.md): a request
/// area and a reply area, a sequence number per direction, and a choice of how to wait for it:
/// spin, hybrid (spin briefly, then sleep on a futex) or block (sleep at once). A channel per client.
/// </summary>
public sealed class MmfTransport : ITransport
{
    public const int DefaultCapacity = 1024 * 1024;

    public TransportFamily Family => TransportFamily.Local;

    public string Name => "mmf";

    public string Description => OperatingSystem.IsLinux()
        ? "memory-mapped file in /dev/shm (0600, private dir); waits: spin, hybrid (spin then futex), block (futex); a channel per client"
        : OperatingSystem.IsWindows()
        ? "memory-mapped file (private dir); waits: spin, hybrid (spin then a named event), block (a named event); a channel per client"
        : "memory-mapped file (0600, private dir); waits: spin, or hybrid/block sleeping in 1 ms steps (no futex here); a channel per client";

    public string? UnsupportedReason => null;

    /// <summary>Messages up to the default capacity; <c>?capacity=</c> sets another per channel.</summary>
    public TransportCapabilities Capabilities => new(TransportFeatures.Reliable | TransportFeatures.MessageBoundaries, DefaultCapacity);

    public IReadOnlyList<TransportOption> Options => [Wait, Capacity];

    private static readonly TransportOption Wait = TransportOption.Choice(
        "wait", "how both sides wait: spin (a core each), hybrid (50 us spin, then a futex sleep) or block (a futex sleep at once)",
        "hybrid", OptionScope.BothEnds, "spin", "hybrid", "block") with
        {
            Compared = ["spin", "hybrid", "block"],
            Shorthand = true,
            SameCoreAdvice = new Dictionary<string, string>
            {
                ["spin"] = "spinning client and server pinned to one CPU take turns at the scheduler's pace; use cross-core",
            },
        };

    private static readonly TransportOption Capacity = TransportOption.Number(
        "capacity", "the largest message in bytes (each area's size)", $"{DefaultCapacity}", OptionScope.BothEnds, 1024, 1 << 30);

    /// <summary>A fresh private directory in /dev/shm (memory, never a disk) where there is one.</summary>
    public Uri DefaultAddress() => PathAddress.ToUri(Name, Path.Combine(
        OperatingSystem.IsLinux() && Directory.Exists("/dev/shm") ? PrivateDirectory.SharedMemoryPattern : PrivateDirectory.DefaultPattern, "channel"));

    public ValueTask<IServer> StartServerAsync(Uri address, RequestHandler handler, CancellationToken ct = default)
    {
        var (_, wait, capacity) = Parse(address);
        string path = PrivateDirectory.Resolve(PathAddress.ToPath(address), out string? ownDirectory);
        try
        {
            return ValueTask.FromResult<IServer>(new MmfServerGroup(path, PathAddress.ToUri(Name, path), capacity, handler, wait,
                () => PrivateDirectory.Remove(ownDirectory)));
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
    }

    /// <summary>
    /// Attaches to the first free channel of the server's (<see cref="MmfServerGroup"/>). When every channel is taken,
    /// waits for the one the server creates after the newest is taken, within the connect timeout.
    /// </summary>
    public ValueTask<IConnection> ConnectAsync(Uri address, CancellationToken ct = default)
    {
        var (options, wait, _) = Parse(address);
        var peer = AddressQuery.WithoutQuery(address);
        string path = PathAddress.ToPath(address);
        if (!File.Exists(path))
        {
            throw new TransportException($"could not connect to {peer}: no such channel ({path} does not exist)");
        }
        var deadline = DateTime.UtcNow + options.ConnectTimeout;
        for (int index = 0; index < MmfServerGroup.MaxChannels;)
        {
            ct.ThrowIfCancellationRequested();
            string channelPath = MmfServerGroup.ChannelPath(path, index);
            if (!File.Exists(channelPath))
            {
                if (DateTime.UtcNow > deadline)
                {
                    throw new TransportException($"could not connect to {peer}: every channel is in use, and the server made no new one within {options.ConnectTimeout.TotalSeconds:0.#} s");
                }
                Thread.Sleep(1); // the server is creating it
                continue;
            }
            if (TryAttach(channelPath, peer, wait, options) is { } connection)
            {
                return ValueTask.FromResult<IConnection>(connection);
            }
            index++;
        }
        throw new TransportException($"could not connect to {peer}: all {MmfServerGroup.MaxChannels} channels are in use");
    }

    /// <summary>The connection on the channel at <paramref name="path"/>, or null when another client holds it.</summary>
    private static MmfConnection? TryAttach(string path, Uri peer, WaitMode wait, EndpointOptions options)
    {
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
            if (MmfConnection.Attach(channel, peer, wait, options.RequestTimeout, options.ConnectTimeout) is { } connection)
            {
                return connection;
            }
        }
        catch
        {
            channel.Dispose();
            throw;
        }
        channel.Dispose();
        return null;
    }

    private (EndpointOptions Options, WaitMode Wait, int Capacity) Parse(Uri address)
    {
        var values = OptionValues.Parse(address, this);
        return (EndpointOptions.From(values), Enum.Parse<WaitMode>(values[Wait], ignoreCase: true), values.Number(Capacity));
    }

    /// <summary>
    /// Replaces a channel file whose server is gone; refuses one whose server is alive, and leaves anything that is not
    /// an IpcBench channel as it is.
    /// </summary>
    internal static void RemoveIfStale(string path)
    {
        switch (FileKinds.Of(path))
        {
            case FileKind.Missing:
                return;
            case var kind and not FileKind.Regular:
                throw PathAddress.Occupied($"{path} is {PathAddress.Describe(kind)}, not an IpcBench channel");
        }
        int livePid = 0;
        try
        {
            using var existing = SharedChannel.Open(path);
            if (existing.State == SharedChannel.StateReady && Kit.Processes.ProcessLiveness.IsAlive(existing.ServerPid))
            {
                livePid = existing.ServerPid;
            }
        }
        catch (TransportException e)
        {
            throw PathAddress.Occupied(e.Message); // "PATH is not an IpcBench channel (too short)"
        }
        if (livePid != 0)
        {
            throw new TransportException($"a server (process {livePid}) already serves the channel {path}");
        }
        File.Delete(path);
    }
}
