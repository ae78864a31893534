using System.Buffers.Binary;
using System.Diagnostics;
using IpcBench.Contract;
using IpcBench.Harness.Results;

namespace IpcBench.Harness.Measurement;

/// <summary>
/// How a server tells its client what serving cost it, in-band, so that it works wherever the server
/// runs (another container, another host). The client sends the 32-byte stats request (the marker
/// then 16 zero bytes); the server answers with the marker, its process CPU time in microseconds
/// (user + system, every thread; -1 when it cannot tell) and the number of ordinary requests it has served, then its
/// counters (<see cref="ProcessCounters"/>) and whether its JIT is done (<see cref="TieringMonitor"/>), all int64
/// little-endian, 128 bytes in all; a server that cannot tell its CPU stops after the request count (32 bytes). Any
/// other request is handled as usual. See docs/wire-format.md.
/// </summary>
public sealed class ServerStats(RequestHandler inner)
{
    /// <summary>
    /// Test-only: microseconds a server busy-waits before each reply ("5.4"), a regression made on purpose, with which
    /// benchmarks/ab.sh checks that its gate catches one (--inject-slowdown). Never set it for figures anyone quotes.
    /// </summary>
    public const string TestDelayVariable = "IPCBENCH_TEST_SERVER_DELAY_US";

    /// <summary>The <see cref="TestDelayVariable"/> in force: 0 when unset; an <see cref="ArgumentException"/> when not a number of microseconds from 0 to 1,000,000.</summary>
    public static double TestDelayUs() => Environment.GetEnvironmentVariable(TestDelayVariable) is not { Length: > 0 } text ? 0
        : double.TryParse(text, System.Globalization.NumberStyles.Float, System.Globalization.CultureInfo.InvariantCulture, out double us) && us is >= 0 and <= 1e6 ? us
        : throw new ArgumentException($"{TestDelayVariable} must be microseconds from 0 to 1000000, not '{text}'");

    /// <summary><paramref name="inner"/> after a busy-wait of <paramref name="delayUs"/>: the test-only slowdown, outside the hot path of every other server.</summary>
    private static RequestHandler Delayed(RequestHandler inner, double delayUs)
    {
        long ticks = (long)(delayUs * Stopwatch.Frequency / 1e6);
        return new RequestHandler((request, reply) =>
        {
            for (long until = Stopwatch.GetTimestamp() + ticks; Stopwatch.GetTimestamp() < until;)
            {
                Thread.SpinWait(1);
            }
            return inner.Handle(request, reply);
        }, inner.MaxReply);
    }

    /// <summary>"\0ipcbench-stats\0": starts with NUL so that no text payload can be mistaken for it.</summary>
    private static ReadOnlySpan<byte> Marker => "\0ipcbench-stats\0"u8;

    /// <summary>The stats request's size, and the short reply's (CPU time and requests only).</summary>
    public const int MessageSize = Handlers.StatsMessageSize;

    /// <summary>The full reply's size: the short one's, the counters, room to spare.</summary>
    public const int ReplySize = Handlers.StatsReplySize;

    private long _requests;
    private readonly Lock _counting = new();
    private ProcessCounters? _previous; // at the last stats request: which threads ran since
    private readonly TieringMonitor _tiering = TieringMonitor.Process; // listening from the server's start, before its first connection

    /// <summary>The JIT field's values: 0 (a server that does not tell, its bytes left zero), settled, still at work.</summary>
    private const long JitStateSettled = 1, JitStateAtWork = 2;

    /// <summary>The echo handler, or with <paramref name="replySize"/> replies of that size (<see cref="Handlers.FixedReply"/>), with the stats request answered on the side; <paramref name="delayUs"/>: <see cref="TestDelayVariable"/>.</summary>
    public static RequestHandler For(int? replySize, double delayUs = 0)
    {
        RequestHandler inner = replySize is int size ? Handlers.FixedReply(size) : Handlers.Echo;
        return new RequestHandler(new ServerStats(delayUs > 0 ? Delayed(inner, delayUs) : inner).Handle, inner.MaxReply);
    }

    public int Handle(ReadOnlySpan<byte> request, Span<byte> reply)
    {
        if (request.Length == MessageSize && request.StartsWith(Marker) && request[Marker.Length..].IndexOfAnyExcept((byte)0) < 0)
        {
            return WriteReply(reply);
        }
        Interlocked.Increment(ref _requests);
        return inner.Handle(request, reply);
    }

    /// <summary>
    /// Under gVisor a process's CPU time leaves out the kernel work done for it (its own network stack's, the ptrace
    /// platform's stops), which is most of a round trip's: read here as 16 us per request where the host's network stack
    /// made it 148 us. Such a server says it cannot tell.
    /// </summary>
    private static readonly bool CpuNotMeasurable = Hosting.GVisor.IsRunningInside;

    private int WriteReply(Span<byte> reply)
    {
        Marker.CopyTo(reply);
        if (CpuNotMeasurable)
        {
            BinaryPrimitives.WriteInt64LittleEndian(reply[16..], -1);
            BinaryPrimitives.WriteInt64LittleEndian(reply[24..], Interlocked.Read(ref _requests));
            return MessageSize;
        }
        var now = ProcessCounters.Read();
        int? threadsRan;
        lock (_counting)
        {
            threadsRan = _previous is { } previous ? now.ThreadsRanSince(previous) : null;
            _previous = now;
        }
        long[] fields = [now.CpuUs, Interlocked.Read(ref _requests), now.UserUs, now.SystemUs, now.VoluntarySwitches, now.InvoluntarySwitches,
            now.RunnableWaitUs, now.AllocatedBytes, threadsRan ?? ProcessCounters.Unknown,
            _tiering.Settled(WarmUp.JitQuiet) ? JitStateSettled : JitStateAtWork];
        for (int i = 0; i < fields.Length; i++)
        {
            BinaryPrimitives.WriteInt64LittleEndian(reply[(16 + 8 * i)..], fields[i]);
        }
        reply[(16 + 8 * fields.Length)..ReplySize].Clear();
        return ReplySize;
    }

    /// <summary>A server's cumulative CPU time and request count at one moment, and its counters when it sent them.</summary>
    /// <param name="ThreadsRan">Its threads that ran since the stats request before this one (null: not told).</param>
    /// <param name="JitSettled">Whether its JIT was done with what it ran, as a client's warm-up asks of its own (null: not told).</param>
    public readonly record struct Snapshot(long CpuUs, long Requests, ProcessCounters? Counters = null, int? ThreadsRan = null, bool? JitSettled = null)
    {
        /// <summary>The server's share per request between <paramref name="earlier"/> and this snapshot; null when the server could not tell.</summary>
        public ServerShare? ShareSince(Snapshot earlier) => ShareSince(earlier, Requests - earlier.Requests);

        /// <summary>The server's share per operation, <paramref name="operations"/> of them since <paramref name="earlier"/>; null when the server could not tell (-1).</summary>
        public ServerShare? ShareSince(Snapshot earlier, long operations) =>
            operations > 0 && CpuUs >= 0 && earlier.CpuUs >= 0
                ? new((double)(CpuUs - earlier.CpuUs) / operations,
                    Counters is { } now && earlier.Counters is { } then ? SideAnatomy.Between(then, now, ThreadsRan, operations) : null)
                : null;
    }

    /// <summary>The server's share of a stretch, per operation: its CPU time, and its anatomy when it sent its counters.</summary>
    public sealed record ServerShare(double CpuUsPerOp, SideAnatomy? Anatomy);

    /// <summary>
    /// The server's share per request over a stretch (CPU, and its anatomy), as the server reports it: asked on one
    /// connection when the stretch starts and again when it ends. Every loop and benchmark brackets its measured requests
    /// with one.
    /// </summary>
    public sealed class Meter
    {
        private readonly IConnection _stats;
        private readonly bool _lossTolerated;
        private readonly Snapshot? _before;

        private Meter(IConnection stats, bool lossTolerated, Snapshot? before) => (_stats, _lossTolerated, _before) = (stats, lossTolerated, before);

        /// <param name="lossTolerated">The transport may lose a message (<see cref="QueryAsync"/>).</param>
        public static async Task<Meter> StartAsync(IConnection stats, bool lossTolerated, CancellationToken ct = default) =>
            new(stats, lossTolerated, await QueryAsync(stats, lossTolerated, ct).ConfigureAwait(false));

        /// <summary>The server's share per request since <see cref="StartAsync"/>; null unless the server answered both times.</summary>
        public async Task<ServerShare?> StopAsync(CancellationToken ct = default) =>
            _before is { } before && await QueryAsync(_stats, _lossTolerated, ct).ConfigureAwait(false) is { } after ? after.ShareSince(before) : null;
    }

    /// <summary>
    /// Asks the server behind <paramref name="connection"/> for its stats; null if it does not answer them (not an IpcBench
    /// server), or if <paramref name="lossTolerated"/> and the reply was lost. Over a transport that loses nothing a timeout
    /// is a server that stopped answering, and fails the caller like any request's: swallowed, it would leave a connection
    /// that refuses the next request (mmf's) and hide why.
    /// </summary>
    public static async ValueTask<Snapshot?> QueryAsync(IConnection connection, bool lossTolerated, CancellationToken ct = default)
    {
        byte[] request = new byte[MessageSize];
        Marker.CopyTo(request);
        byte[] reply = new byte[ReplySize];
        int length;
        try
        {
            length = await connection.RequestAsync(request, reply, ct).ConfigureAwait(false);
        }
        catch (TransportTimeoutException) when (lossTolerated)
        {
            return null;
        }
        // An echo server that does not know the request sends it back unchanged: zeros after the marker.
        if (length is not (MessageSize or ReplySize) || !reply.AsSpan().StartsWith(Marker) || reply.AsSpan(Marker.Length, length - Marker.Length).IndexOfAnyExcept((byte)0) < 0)
        {
            return null;
        }
        long Field(int i) => BinaryPrimitives.ReadInt64LittleEndian(reply.AsSpan(16 + 8 * i));
        var snapshot = new Snapshot(Field(0), Field(1));
        if (length == MessageSize)
        {
            return snapshot; // a server that tells its CPU time alone (an older WCF host), or cannot tell even that (gVisor)
        }
        var counters = new ProcessCounters(Field(2), Field(3), Field(4), Field(5), Field(6), Field(7), []);
        return snapshot with
        {
            Counters = counters,
            ThreadsRan = Field(8) is >= 0 and <= int.MaxValue and var ran ? (int)ran : null,
            JitSettled = Field(9) switch { JitStateSettled => true, JitStateAtWork => false, _ => null },
        };
    }

    /// <summary>
    /// False while the server behind <paramref name="connection"/> says its JIT is still at work, or when
    /// <paramref name="lossTolerated"/> and its reply was lost (asked again the next round); true once it is done, and
    /// for a server that does not say (an older one, the Mono WCF host, one under gVisor): a warm-up asks between its
    /// rounds (<see cref="WarmUp"/>).
    /// </summary>
    public static async ValueTask<bool> JitSettledAsync(IConnection connection, bool lossTolerated, CancellationToken ct = default)
    {
        try
        {
            return await QueryAsync(connection, lossTolerated: false, ct).ConfigureAwait(false) is not { JitSettled: false };
        }
        catch (TransportTimeoutException) when (lossTolerated)
        {
            return false;
        }
    }
}
