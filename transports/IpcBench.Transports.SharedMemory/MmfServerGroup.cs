using IpcBench.Contract;
using IpcBench.Kit;
using IpcBench.Kit.Files;

namespace IpcBench.Transports.SharedMemory;

/// <summary>
/// A channel per client: the address's file, then <c>FILE.1</c>, <c>FILE.2</c> ..., each served by its own
/// <see cref="MmfServer"/>. There is always one free channel: when a client attaches to the newest, the next is
/// created, so that memory grows with the clients that came and not with a limit set in advance. A client takes
/// the first free channel it finds (<see cref="MmfTransport.ConnectAsync"/>).
/// </summary>
internal sealed class MmfServerGroup : IServer
{
    /// <summary>The most clients served at once: a bound on the files one server may create.</summary>
    public const int MaxChannels = 256;

    private readonly string _path;
    private readonly int _capacity;
    private readonly RequestHandler _handler;
    private readonly WaitMode _wait;
    private readonly Action _removeDirectory;
    private readonly List<MmfServer> _servers = [];
    private bool _disposed;

    public MmfServerGroup(string path, Uri address, int capacity, RequestHandler handler, WaitMode wait, Action removeDirectory)
    {
        (_path, Address, _capacity, _handler, _wait, _removeDirectory) = (path, address, capacity, handler, wait, removeDirectory);
        if (handler.ReplyCapacity(0) > capacity)
        {
            throw new TransportException($"replies of {handler.ReplyCapacity(0)} B do not fit the channel's capacity of {capacity} B: raise it (mmf://...?capacity=)");
        }
        AddChannel();
    }

    public Uri Address { get; }

    /// <summary>The file of channel <paramref name="index"/>: the address's own for the first.</summary>
    public static string ChannelPath(string path, int index) => index == 0 ? path : $"{path}.{index}";

    private void AddChannel()
    {
        int index = _servers.Count;
        string path = ChannelPath(_path, index);
        MmfTransport.RemoveIfStale(path);
        var channel = SharedChannel.Create(path, _capacity);
        _servers.Add(new MmfServer(channel, Address, _handler, _wait, () => PrivateDirectory.TryDeleteFile(path), () => OnAttached(index)));
    }

    private void OnAttached(int index)
    {
        lock (_servers)
        {
            if (_disposed || index != _servers.Count - 1 || _servers.Count == MaxChannels)
            {
                return;
            }
            try
            {
                AddChannel();
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException or TransportException or UnusableAddressException)
            {
                Log.Warn($"mmf server {Address}: no channel for another client: {e.Message}");
            }
        }
    }

    public async ValueTask DisposeAsync()
    {
        MmfServer[] servers;
        lock (_servers)
        {
            _disposed = true;
            servers = [.. _servers];
        }
        foreach (var server in servers)
        {
            await server.DisposeAsync().ConfigureAwait(false);
        }
        _removeDirectory();
    }
}
