using System.Buffers.Binary;
using IpcBench.Contract;

namespace IpcBench.Kit.Framing;

/// <summary>
/// The one framing of IpcBench's byte-stream transports (tcp, tcp-nagle, uds, pipe): each message is a
/// 4-byte unsigned big-endian (network order) payload length, then the payload. A receiver checks the
/// length against its limit before it allocates or reads anything else. See docs/wire-format.md.
/// </summary>
public static class LengthPrefix
{
    public const int HeaderSize = 4;

    /// <summary>The default largest payload a receiver accepts: 16 MiB.</summary>
    public const int DefaultMaxPayload = 16 * 1024 * 1024;

    public static void Write(Span<byte> header, int payloadLength) =>
        BinaryPrimitives.WriteUInt32BigEndian(header, checked((uint)payloadLength));

    /// <summary>Reads a header and returns the payload length, or throws if it exceeds <paramref name="maxPayload"/>.</summary>
    public static int Read(ReadOnlySpan<byte> header, int maxPayload)
    {
        uint length = BinaryPrimitives.ReadUInt32BigEndian(header);
        if (length > (uint)maxPayload)
        {
            ThrowTooLarge(length, maxPayload);
        }
        return (int)length;
    }

    // Kept out of line so that the hot path stays small and inlinable.
    private static void ThrowTooLarge(uint length, int maxPayload) =>
        throw new FrameTooLargeException((int)Math.Min(length, int.MaxValue), maxPayload);
}
