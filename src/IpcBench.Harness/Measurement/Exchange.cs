using System.Diagnostics;
using System.Runtime.CompilerServices;
using IpcBench.Contract;

namespace IpcBench.Harness.Measurement;

/// <summary>A reply that is not the echo of its request: the measurement is invalid.</summary>
public sealed class ReplyMismatchException(string message) : Exception(message);

/// <summary>One request and its checked reply, on buffers allocated once.</summary>
/// <param name="firstNumber">Where this exchange's request numbers start: clients that share a server stamp distinct ones.</param>
/// <param name="replySize">The reply's size when the server answers with a size of its own (<c>serve --reply-size</c>); null for an echo.</param>
public sealed class Exchange(IConnection connection, int size, long firstNumber = 0, int? replySize = null)
{
    private readonly byte[] _request = Filled(size);
    private readonly byte[] _reply = new byte[replySize ?? size];
    private readonly byte[]? _expected = replySize is int r ? Filled(r) : null;
    private long _number = firstNumber;

    private static byte[] Filled(int size)
    {
        var request = new byte[size];
        Payload.Fill(request);
        return request;
    }

    /// <summary>
    /// Sends one request; returns its round trip in Stopwatch ticks, or -1 if it was lost and loss is tolerated. The
    /// round trip is timed from <paramref name="since"/> when given (an open loop's intended send time), else from now.
    /// </summary>
    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public async ValueTask<long> SendAsync(bool tolerateLoss, CancellationToken ct, long since = 0)
    {
        Payload.Stamp(_request, ++_number);
        long start = since != 0 ? since : Stopwatch.GetTimestamp();
        int length;
        try
        {
            length = await connection.RequestAsync(_request, _reply, ct).ConfigureAwait(false);
        }
        catch (TransportTimeoutException) when (tolerateLoss)
        {
            return -1;
        }
        catch (FrameTooLargeException e) when (e.Limit == _reply.Length && e.Length > _reply.Length)
        {
            throw new ReplyMismatchException($"request {_number}: reply has {e.Length} B, expected {_reply.Length} B (a server of another --reply-size?)");
        }
        long ticks = Stopwatch.GetTimestamp() - start;
        var reply = _reply.AsSpan(0, length);
        if ((_expected is null ? Payload.CheckEcho(_request, reply, content: true) : Payload.CheckReply(_request, reply, _expected)) is { } problem)
        {
            throw new ReplyMismatchException($"request {_number}: {problem}");
        }
        return ticks;
    }
}
