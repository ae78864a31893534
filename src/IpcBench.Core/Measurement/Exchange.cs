using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace IpcBench.Core.Measurement;

/// <summary>A reply that is not the echo of its request: the measurement is invalid.</summary>
public sealed class ReplyMismatchException(string message) : Exception(message);

/// <summary>One request and its checked reply, on buffers allocated once.</summary>
/// <param name="firstNumber">Where this exchange's request numbers start: clients that share a server stamp distinct ones.</param>
public sealed class Exchange(IConnection connection, int size, long firstNumber = 0)
{
    private readonly byte[] _request = Filled(size);
    private readonly byte[] _reply = new byte[size];
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
        long ticks = Stopwatch.GetTimestamp() - start;
        if (Payload.CheckEcho(_request, _reply.AsSpan(0, length), content: true) is { } problem)
        {
            throw new ReplyMismatchException($"request {_number}: {problem}");
        }
        return ticks;
    }
}
