using System.Diagnostics;
using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;

namespace IpcBench.Contract;

/// <summary>A transport failed: nothing answered, the peer went away, or the peer broke the protocol.</summary>
public class TransportException(string message, Exception? inner = null) : Exception(message, inner);

/// <summary>A wait ran out: the peer did not answer in time (for a datagram transport, a lost message).</summary>
public sealed class TransportTimeoutException(string message) : TransportException(message);

/// <summary>A message is larger than the receiver accepts; nothing was allocated for it.</summary>
public sealed class FrameTooLargeException(int length, int limit, string? hint = null)
    : TransportException($"message of {length} B exceeds the limit of {limit} B" + (hint is null ? "" : $" ({hint})"))
{
    public int Length { get; } = length;
    public int Limit { get; } = limit;

    /// <summary>Refuses a message of <paramref name="length"/> bytes where at most <paramref name="limit"/> fit.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void ThrowIfTooLarge(int length, int limit)
    {
        if (length > limit)
        {
            Throw(length, limit);
        }
    }

    /// <summary>Copies a received reply into the caller's buffer, or refuses it when it does not fit.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int CopyReply(ReadOnlySpan<byte> answer, Span<byte> reply)
    {
        ThrowIfTooLarge(answer.Length, reply.Length);
        answer.CopyTo(reply);
        return answer.Length;
    }

    // Kept out of line so the checks above stay small enough to inline.
    [DoesNotReturn, StackTraceHidden]
    private static void Throw(int length, int limit) => throw new FrameTooLargeException(length, limit);
}
