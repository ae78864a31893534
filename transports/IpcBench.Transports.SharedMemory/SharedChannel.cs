using System.IO.MemoryMappedFiles;
using IpcBench.Contract;

namespace IpcBench.Transports.SharedMemory;

/// <summary>
/// The mapped channel file, laid out as LAYOUT.md describes: a header page (identity, server and
/// client, and one <see cref="Signal"/> per direction, each on its own cache lines), then the request
/// area, then the reply area, <see cref="Capacity"/> bytes each.
/// </summary>
internal sealed unsafe class SharedChannel : IDisposable
{
    public const long Magic = 0x31464D4D42435049; // "IPCBMMF1" read as little-endian bytes
    public const int Version = 1;
    public const int HeaderSize = 4096;

    private const int MagicOffset = 0, VersionOffset = 8, CapacityOffset = 12, ServerPidOffset = 16, StateOffset = 20;
    private const int ClientPidOffset = 128, AttachOffset = 132;
    private const int RequestOffset = 256, ReplyOffset = 384; // each: sequence, waiters, length

    public const int StateReady = 1, StateStopped = 2;

    private readonly MemoryMappedFile _map;
    private readonly MemoryMappedViewAccessor _view;
    private readonly byte* _base;

    private SharedChannel(MemoryMappedFile map, MemoryMappedViewAccessor view, int capacity, string path)
    {
        _map = map;
        _view = view;
        byte* pointer = null;
        view.SafeMemoryMappedViewHandle.AcquirePointer(ref pointer);
        _base = pointer + view.PointerOffset;
        Capacity = capacity;
        Requests = SignalAt(RequestOffset, path, "requests");
        Replies = SignalAt(ReplyOffset, path, "replies");
        Attach = SignalAt(AttachOffset, path, "attach");
    }

    private Signal SignalAt(int offset, string path, string direction) =>
        new((int*)(_base + offset), (int*)(_base + offset + 4), (int*)(_base + offset + 8), WakeEvent(path, direction));

    /// <summary>
    /// On Windows, what a sleeper on one direction of the channel at <paramref name="path"/> waits on: a named auto-reset
    /// event in the session's namespace, created by whichever side opens it first, named after the file so that both find
    /// it. Null elsewhere: Linux sleeps on the shared word itself (a futex), and named events are Windows' alone.
    /// </summary>
    private static EventWaitHandle? WakeEvent(string path, string direction)
    {
        if (!OperatingSystem.IsWindows())
        {
            return null;
        }
        byte[] file = System.Text.Encoding.UTF8.GetBytes(Path.GetFullPath(path).ToLowerInvariant()); // Windows paths ignore case
        string name = $"Local\\ipcbench-mmf-{Convert.ToHexStringLower(System.Security.Cryptography.SHA256.HashData(file))[..32]}-{direction}";
        return new EventWaitHandle(false, EventResetMode.AutoReset, name);
    }

    public int Capacity { get; }

    public Signal Requests { get; }
    public Signal Replies { get; }

    /// <summary>Bumped by a client when it attaches or detaches: what an idle server sleeps on.</summary>
    public Signal Attach { get; }

    public Span<byte> RequestArea => new(_base + HeaderSize, Capacity);
    public Span<byte> ReplyArea => new(_base + HeaderSize + Capacity, Capacity);

    public int ServerPid => Volatile.Read(ref *(int*)(_base + ServerPidOffset));
    public int State => Volatile.Read(ref *(int*)(_base + StateOffset));
    public int ClientPid => Volatile.Read(ref *(int*)(_base + ClientPidOffset));

    public static long FileSize(int capacity) => HeaderSize + 2L * capacity;

    /// <summary>
    /// Creates the file (mode 0600) and maps it; the header says "ready" only once complete. It is made under a
    /// temporary name and renamed into place, so that a client looking for a free channel never opens half a file.
    /// </summary>
    public static SharedChannel Create(string path, int capacity)
    {
        string partial = $"{path}.{Environment.ProcessId}.partial"; // this process's own: CreateNew never takes another's file
        var options = new FileStreamOptions
        {
            Mode = FileMode.CreateNew,
            Access = FileAccess.ReadWrite,
            Share = FileShare.ReadWrite | FileShare.Delete,
            PreallocationSize = FileSize(capacity),
        };
        if (!OperatingSystem.IsWindows())
        {
            options.UnixCreateMode = UnixFileMode.UserRead | UnixFileMode.UserWrite;
        }
        var file = new FileStream(partial, options);
        file.SetLength(FileSize(capacity));
        var channel = Map(file, capacity, path);
        byte* b = channel._base;
        *(int*)(b + VersionOffset) = Version;
        *(int*)(b + CapacityOffset) = capacity;
        *(int*)(b + ServerPidOffset) = Environment.ProcessId;
        Volatile.Write(ref *(long*)(b + MagicOffset), Magic);
        Volatile.Write(ref *(int*)(b + StateOffset), StateReady);
        try
        {
            File.Move(partial, path);
        }
        catch
        {
            channel.Dispose();
            File.Delete(partial);
            throw;
        }
        return channel;
    }

    /// <summary>Maps an existing channel file and checks that it is one; the caller checks that its server is alive.</summary>
    public static SharedChannel Open(string path)
    {
        var file = new FileStream(path, FileMode.Open, FileAccess.ReadWrite, FileShare.ReadWrite);
        try
        {
            if (file.Length < HeaderSize)
            {
                throw new TransportException($"{path} is not an IpcBench channel (too short)");
            }
            Span<byte> header = stackalloc byte[IdentitySize];
            file.ReadExactly(header);
            return CapacityOf(header, file.Length) is int capacity and > 0
                ? Map(file, capacity, path)
                : throw new TransportException($"{path} is not an IpcBench channel (version {Version})");
        }
        catch
        {
            file.Dispose();
            throw;
        }
    }

    /// <summary>The bytes that say what a file is: magic, version, capacity.</summary>
    internal const int IdentitySize = 16;

    /// <summary>
    /// The capacity a channel file's first <see cref="IdentitySize"/> bytes declare, or 0 when they are not this layout's or
    /// the file (<paramref name="fileLength"/> bytes) is too short for it: what a mapping may then touch lies inside the file.
    /// </summary>
    internal static int CapacityOf(ReadOnlySpan<byte> identity, long fileLength)
    {
        long magic = BitConverter.ToInt64(identity);
        int version = BitConverter.ToInt32(identity[VersionOffset..]);
        int capacity = BitConverter.ToInt32(identity[CapacityOffset..]);
        return magic == Magic && version == Version && capacity > 0 && fileLength >= FileSize(capacity) ? capacity : 0;
    }

    /// <param name="path">The channel's name, which its wake-up events are named after: the final one, not a file's while it is made.</param>
    private static SharedChannel Map(FileStream file, int capacity, string path)
    {
        var map = MemoryMappedFile.CreateFromFile(file, mapName: null, FileSize(capacity),
            MemoryMappedFileAccess.ReadWrite, HandleInheritability.None, leaveOpen: false);
        var view = map.CreateViewAccessor(0, FileSize(capacity), MemoryMappedFileAccess.ReadWrite);
        return new SharedChannel(map, view, capacity, path);
    }

    /// <summary>Claims the channel for this process; returns the pid of the client that holds it instead, or 0 on success.</summary>
    public int TryClaim()
    {
        int* slot = (int*)(_base + ClientPidOffset);
        int holder = Interlocked.CompareExchange(ref *slot, Environment.ProcessId, 0);
        if (holder != 0 && !Kit.Processes.ProcessLiveness.IsAlive(holder))
        {
            // A client that was killed never let go: take over its claim.
            holder = Interlocked.CompareExchange(ref *slot, Environment.ProcessId, holder) == holder ? 0 : ClientPid;
        }
        return holder;
    }

    public void Release() => Interlocked.CompareExchange(ref *(int*)(_base + ClientPidOffset), 0, Environment.ProcessId);

    /// <summary>Lets go of a client that is gone (server side).</summary>
    public void ReleaseClient(int pid) => Interlocked.CompareExchange(ref *(int*)(_base + ClientPidOffset), 0, pid);

    public void MarkStopped() => Volatile.Write(ref *(int*)(_base + StateOffset), StateStopped);

    public void Dispose()
    {
        Requests.Dispose();
        Replies.Dispose();
        Attach.Dispose();
        _view.SafeMemoryMappedViewHandle.ReleasePointer();
        _view.Dispose();
        _map.Dispose();
    }
}
