using System.Collections.Concurrent;
using IpcBench.Contract;
using IpcBench.Contract.Options;

namespace IpcBench.Transports.InProcess;

/// <summary>
/// The floor under every other figure, not IPC: the request handler called directly in the client's process, through
/// the same measurement loop. <c>inproc</c> passes the client's buffers straight to the handler; <c>inproc-copy</c> first
/// copies the request into a buffer of the "server's" and the reply out of another, the two copies any transport makes
/// at the least. What a transport costs over <c>inproc-copy</c> is what crossing the process boundary costs.
/// </summary>
public sealed class InProcessTransport : ITransport
{
    public static InProcessTransport Direct { get; } = new("inproc",
        "baseline, not IPC: the handler called in the client's process on the client's own buffers", copy: false);

    public static InProcessTransport Copying { get; } = new("inproc-copy",
        "baseline, not IPC: the handler called in the client's process, the payload copied into a buffer and the reply out of one", copy: true);

    private readonly bool _copy;

    private InProcessTransport(string name, string description, bool copy)
    {
        Name = name;
        Description = description;
        _copy = copy;
    }

    /// <summary>Servers started in this process, by name: a client finds its server here, never in another process.</summary>
    private static readonly ConcurrentDictionary<string, RequestHandler> Servers = new();

    private static int _lastServer;

    /// <summary>16 MiB, as the stream transports: a limit, so that a baseline refuses what the others refuse.</summary>
    private const int MaxPayload = 16 * 1024 * 1024;

    public string Name { get; }

    public TransportFamily Family => TransportFamily.Baseline;

    public string Description { get; }

    public string? UnsupportedReason => null;

    /// <summary>Calls from several threads at once are independent calls of the handler: as many in flight as asked.</summary>
    public TransportCapabilities Capabilities => new(
        TransportFeatures.Reliable | TransportFeatures.MessageBoundaries | TransportFeatures.Pipelined | TransportFeatures.InProcess,
        MaxPayload);

    public IReadOnlyList<TransportOption> Options => [];

    public Uri DefaultAddress() => new($"{Name}://server-{Interlocked.Increment(ref _lastServer)}");

    public ValueTask<IServer> StartServerAsync(Uri address, RequestHandler handler, CancellationToken ct = default)
    {
        EndpointOptions.Parse(address, this);
        var bound = AddressQuery.WithoutQuery(address);
        return Servers.TryAdd(bound.Authority, handler)
            ? ValueTask.FromResult<IServer>(new Server(bound))
            : throw new TransportException($"cannot listen on {bound}: a server of that name is running in this process");
    }

    public ValueTask<IConnection> ConnectAsync(Uri address, CancellationToken ct = default)
    {
        EndpointOptions.Parse(address, this);
        var peer = AddressQuery.WithoutQuery(address);
        return Servers.TryGetValue(peer.Authority, out var handler)
            ? ValueTask.FromResult<IConnection>(_copy ? new CopyingConnection(handler) : new DirectConnection(handler))
            : throw new TransportException(
                $"could not connect to {peer}: no such server in this process ({Name} is not IPC: its server runs in the client's own process)");
    }

    private sealed class Server(Uri address) : IServer
    {
        public Uri Address => address;

        public ValueTask DisposeAsync()
        {
            Servers.TryRemove(address.Authority, out _);
            return ValueTask.CompletedTask;
        }
    }

    private sealed class DirectConnection(RequestHandler handler) : IConnection
    {
        public ValueTask<int> RequestAsync(ReadOnlyMemory<byte> request, Memory<byte> reply, CancellationToken ct = default)
        {
            FrameTooLargeException.ThrowIfTooLarge(request.Length, MaxPayload);
            try
            {
                return ValueTask.FromResult(handler.Handle(request.Span, reply.Span));
            }
            catch (ArgumentException) when (handler.ReplyCapacity(request.Length) > reply.Length)
            {
                // The handler wrote past the client's buffer: the reply does not fit, as a transport would say.
                throw new FrameTooLargeException(handler.ReplyCapacity(request.Length), reply.Length);
            }
        }

        public ValueTask DisposeAsync() => ValueTask.CompletedTask;
    }

    /// <summary>The "server's" two buffers, grown as requests grow; a connection carries one request at a time per thread.</summary>
    private sealed class CopyingConnection(RequestHandler handler) : IConnection
    {
        [ThreadStatic] private static byte[]? _inbound;
        [ThreadStatic] private static byte[]? _outbound;

        public ValueTask<int> RequestAsync(ReadOnlyMemory<byte> request, Memory<byte> reply, CancellationToken ct = default)
        {
            FrameTooLargeException.ThrowIfTooLarge(request.Length, MaxPayload);
            int capacity = handler.ReplyCapacity(request.Length);
            byte[] inbound = Fit(ref _inbound, request.Length);
            byte[] outbound = Fit(ref _outbound, capacity);
            request.Span.CopyTo(inbound);
            int length = handler.Handle(inbound.AsSpan(0, request.Length), outbound.AsSpan(0, capacity));
            return ValueTask.FromResult(FrameTooLargeException.CopyReply(outbound.AsSpan(0, length), reply.Span));
        }

        private static byte[] Fit(ref byte[]? buffer, int length) =>
            buffer is not null && buffer.Length >= length ? buffer : buffer = new byte[Math.Max(length, 1024)];

        public ValueTask DisposeAsync() => ValueTask.CompletedTask;
    }
}
