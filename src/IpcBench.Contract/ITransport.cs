namespace IpcBench.Contract;

/// <summary>
/// One way for two processes to exchange request/reply messages, named by a URI scheme
/// ("tcp", "uds", ...). The lifecycle contract, written once for every transport:
/// <list type="bullet">
/// <item><see cref="StartServerAsync"/> binds, starts accepting, and returns only once a client can
/// connect; the returned <see cref="IServer.Address"/> is the bound address (port 0 becomes the real
/// port, a generated path becomes the real path). Disposing the server stops accepting, closes every
/// connection and removes every file it created.</item>
/// <item><see cref="ConnectAsync"/> returns a connection ready for requests, or throws
/// <see cref="TransportException"/> within the connect timeout when nothing answers.</item>
/// <item>A connection carries one request at a time, unless the transport says <see cref="TransportFeatures.Pipelined"/>:
/// then <see cref="IConnection.RequestAsync"/> may be called again before an earlier call ends. A reply that does not arrive within the request
/// timeout throws <see cref="TransportTimeoutException"/>; a peer that goes away throws
/// <see cref="TransportException"/>. Neither ever hangs.</item>
/// </list>
/// </summary>
public interface ITransport
{
    /// <summary>The URI scheme that selects this transport.</summary>
    string Name { get; }

    /// <summary>One line for <c>ipcbench list</c>: what this transport really is on this OS.</summary>
    string Description { get; }

    /// <summary>The kind of transport it is, which the reports group by: its neighbours in a chart are its alternatives.</summary>
    TransportFamily Family { get; }

    /// <summary>
    /// Null when what this machine has lets the transport run (its library, an OS feature); otherwise why not. Read from
    /// the machine alone, with no I/O: what lies beyond it, a broker, <see cref="ProbeAsync"/> asks.
    /// </summary>
    string? UnsupportedReason { get; }

    /// <summary>
    /// Null when the transport runs here now; otherwise why not, and how to fix it: <see cref="UnsupportedReason"/>, and
    /// for a brokered transport whether the broker <paramref name="address"/> names answers within <paramref name="bound"/>
    /// (null: the configured broker, which a run that names its own, such as <c>ping --server</c>, never uses).
    /// </summary>
    ValueTask<string?> ProbeAsync(Uri? address, TimeSpan bound, CancellationToken ct = default) => ValueTask.FromResult(UnsupportedReason);

    /// <summary>
    /// Why its client cannot run in a NativeAOT build (the library's reflection or runtime code generation, as the
    /// publish's trim and AOT warnings name it), or null when it can. Such a build refuses the transport with this reason.
    /// </summary>
    string? NativeAotUnsupportedReason => null;

    /// <summary>
    /// Why its server cannot run here where its client can (wcf's .NET Framework host on a Windows without the .NET
    /// Framework, such as Nano Server), or null. <c>serve</c>, and <c>ping</c> without --server, refuse with it.
    /// </summary>
    string? ServerUnsupportedReason => null;

    /// <summary>
    /// The broker program its messages go through ("rabbitmq-server", "nats-server", "redis-server"), for those
    /// <see cref="TransportFeatures.Brokered"/>; null for the rest. A container pair starts it in a container of its own.
    /// </summary>
    string? Broker => null;

    /// <summary>What the transport guarantees on this OS, computed at run time.</summary>
    TransportCapabilities Capabilities { get; }

    /// <summary>
    /// The options this transport takes in its address's query string, beyond the common ones (timeouts):
    /// declared once here, and learnt from here by the CLI, the suite, <c>ipcbench list</c> and the reports.
    /// </summary>
    IReadOnlyList<Options.TransportOption> Options { get; }

    /// <summary>The address a server binds when the user gives none: a free port, a fresh private path.</summary>
    Uri DefaultAddress();

    ValueTask<IServer> StartServerAsync(Uri address, RequestHandler handler, CancellationToken ct = default);

    ValueTask<IConnection> ConnectAsync(Uri address, CancellationToken ct = default);
}

/// <summary>The kinds of transport, as users choose between them.</summary>
public enum TransportFamily
{
    /// <summary>Not IPC: the handler called in the client's own process, the floor under every other figure.</summary>
    Baseline,
    /// <summary>Sockets as the OS gives them: TCP, UDP, Unix domain sockets.</summary>
    Sockets,
    /// <summary>Same-machine only: named pipes, shared memory.</summary>
    Local,
    /// <summary>Message queues and brokers: ZeroMQ, AMQP, NATS, Redis.</summary>
    Messaging,
    /// <summary>RPC frameworks (gRPC, SignalR, JSON-RPC, WCF) and the plain HTTP under some of them.</summary>
    Rpc,
}

/// <summary>A running server. Disposing it stops it and cleans up what it created.</summary>
public interface IServer : IAsyncDisposable
{
    /// <summary>The address clients connect to.</summary>
    Uri Address { get; }

    /// <summary>
    /// Completes, with why, if the server stops serving by itself: a host process of its own died. Most servers live in
    /// the serving process and cannot; for them it never completes.
    /// </summary>
    Task<string> Lost => Never;

    /// <summary>How long a stopping server waits for its sessions, threads or host to end before it warns and goes on.</summary>
    public static readonly TimeSpan StopTimeout = TimeSpan.FromSeconds(5);

    private static readonly Task<string> Never = new TaskCompletionSource<string>().Task;
}

/// <summary>A client connection: one request in flight, or several where the transport pipelines (<see cref="TransportFeatures.Pipelined"/>).</summary>
public interface IConnection : IAsyncDisposable
{
    /// <summary>
    /// Sends <paramref name="request"/>, waits for the reply, copies it into <paramref name="reply"/>
    /// and returns its length. Throws <see cref="FrameTooLargeException"/> if the reply does not fit.
    /// </summary>
    ValueTask<int> RequestAsync(ReadOnlyMemory<byte> request, Memory<byte> reply, CancellationToken ct = default);
}

/// <summary>
/// Server-side work for one request: write the reply, return its length. Synchronous and span-based so that the echo
/// path allocates nothing. It says how much room its replies need (<see cref="ReplyCapacity"/>), which a server sizes its
/// reply buffer by.
/// </summary>
/// <param name="respond">Writes the reply to a request; returns its length.</param>
/// <param name="maxReply">The longest reply it writes whatever the request's size (<see cref="Handlers.FixedReply"/>); 0 when
/// its replies are no longer than their requests (an echo).</param>
public sealed class RequestHandler(RequestHandler.Respond respond, int maxReply = 0)
{
    public delegate int Respond(ReadOnlySpan<byte> request, Span<byte> reply);

    /// <summary>The longest reply it writes whatever the request's size; 0 when no longer than the request.</summary>
    public int MaxReply { get; } = maxReply;

    /// <summary>Writes the reply to <paramref name="request"/> into <paramref name="reply"/>; returns its length.</summary>
    public int Handle(ReadOnlySpan<byte> request, Span<byte> reply) => respond(request, reply);

    /// <summary>
    /// The room the reply to a request of <paramref name="requestLength"/> bytes needs: the request's (an echo), the stats
    /// reply's, or <see cref="MaxReply"/>.
    /// </summary>
    public int ReplyCapacity(int requestLength) => Math.Max(Math.Max(requestLength, Handlers.StatsReplySize), MaxReply);

    /// <summary>
    /// The reply in an array of its own, exactly its length, for the frameworks that take a result as an array (gRPC's
    /// message, a SignalR hub, JSON-RPC): one array per reply. A request shorter than the stats reply is answered on the
    /// stack first, so a 1 B echo does not cost a 128 B array and a copy.
    /// </summary>
    public byte[] ReplyArray(ReadOnlySpan<byte> request)
    {
        int capacity = ReplyCapacity(request.Length);
        if (capacity == Handlers.StatsReplySize)
        {
            Span<byte> small = stackalloc byte[Handlers.StatsReplySize];
            return small[..Handle(request, small)].ToArray();
        }
        byte[] reply = new byte[capacity];
        int length = Handle(request, reply);
        return length == reply.Length ? reply : reply[..length];
    }
}

public static class Handlers
{
    /// <summary>The size of the stats request, which every IpcBench server answers beside its handler (the harness's ServerStats).</summary>
    public const int StatsMessageSize = 32;

    /// <summary>The size of the stats reply: a server's reply buffer has room for it whatever the request's size.</summary>
    public const int StatsReplySize = 128;

    /// <summary>Replies with the request, byte for byte.</summary>
    public static readonly RequestHandler Echo = new(static (request, reply) =>
    {
        request.CopyTo(reply);
        return request.Length;
    });

    /// <summary>
    /// Replies with <paramref name="replySize"/> bytes whatever the request's size (a small request with a large reply is
    /// most RPC): the payload pattern with the request's first bytes (its number, as many as both have, up to 8), so that
    /// the client can tell the reply is its request's. A reply of the request's size is byte for byte its echo. An empty
    /// request, a transport's connect probe (<see cref="ConnectProbe"/>), is answered empty, as an echo would.
    /// </summary>
    public static RequestHandler FixedReply(int replySize)
    {
        byte[] pattern = new byte[replySize];
        Payload.Fill(pattern);
        return new RequestHandler((request, reply) =>
        {
            if (request.IsEmpty)
            {
                return 0;
            }
            pattern.CopyTo(reply);
            request[..Payload.StampLength(request.Length, replySize)].CopyTo(reply);
            return replySize;
        }, replySize);
    }
}
