using System.Buffers.Binary;

namespace IpcBench.Contract;

/// <summary>Request payloads that change with every request, so that a stale or cached reply fails the check.</summary>
public static class Payload
{
    /// <summary>Fills <paramref name="buffer"/> with a fixed pattern.</summary>
    public static void Fill(Span<byte> buffer)
    {
        for (int i = 0; i < buffer.Length; i++)
        {
            buffer[i] = (byte)(i * 31 + 7);
        }
    }

    /// <summary>Writes the request number into the payload's first bytes (as many as fit, up to 8).</summary>
    public static void Stamp(Span<byte> buffer, long requestNumber)
    {
        if (buffer.Length >= sizeof(long))
        {
            BinaryPrimitives.WriteInt64LittleEndian(buffer, requestNumber);
        }
        else if (!buffer.IsEmpty)
        {
            buffer[0] = (byte)requestNumber;
        }
    }

    /// <summary>How many of a request's first bytes a reply of <paramref name="replySize"/> bytes carries back (<see cref="Handlers.FixedReply"/>).</summary>
    public static int StampLength(int requestSize, int replySize) => Math.Min(Math.Min(requestSize, replySize), sizeof(long));

    /// <summary>
    /// Null when <paramref name="reply"/> is <see cref="Handlers.FixedReply"/>'s to <paramref name="request"/>: the pattern of
    /// <paramref name="expected"/>'s length (<paramref name="expected"/> holds it) with the request's first bytes; otherwise what is wrong with it.
    /// </summary>
    public static string? CheckReply(ReadOnlySpan<byte> request, ReadOnlySpan<byte> reply, ReadOnlySpan<byte> expected)
    {
        if (reply.Length != expected.Length)
        {
            return $"reply has {reply.Length} B, expected {expected.Length} B (a server of another --reply-size?)";
        }
        int stamp = StampLength(request.Length, reply.Length);
        if (!reply[..stamp].SequenceEqual(request[..stamp]) || !reply[stamp..].SequenceEqual(expected[stamp..]))
        {
            return "reply is not the one to this request (its number or pattern differs)";
        }
        return null;
    }

    /// <summary>Null when the echo reply matches the request; otherwise what is wrong with it.</summary>
    public static string? CheckEcho(ReadOnlySpan<byte> request, ReadOnlySpan<byte> reply, bool content)
    {
        if (reply.Length != request.Length)
        {
            return $"reply has {reply.Length} B, expected {request.Length} B (a server of another --reply-size?)";
        }
        if (content && !reply.SequenceEqual(request))
        {
            int at = reply.CommonPrefixLength(request);
            return $"reply differs from the request at byte {at} (0x{reply[at]:x2} instead of 0x{request[at]:x2})";
        }
        return null;
    }
}
