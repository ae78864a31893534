using System.Buffers.Binary;

namespace IpcBench.Transports.Grpc;

/// <summary>
/// The gRPC wire format for the one message of Protos/echo.proto, written by hand: a gRPC message is
/// a 1-byte compressed flag (0) and a 4-byte big-endian length, then the protobuf bytes; EchoMessage
/// is field 1, wire type 2 (tag 0x0A), a varint length, then the payload. (The grpc-dotnet and
/// Google.Protobuf runtime packages these would come from cannot be restored here.)
/// </summary>
internal static class GrpcFraming
{
    public const string Path = "/ipcbench.Echo/Call";
    public const string ContentType = "application/grpc";
    public const int PrefixSize = 5;
    private const byte PayloadTag = (1 << 3) | 2;

    /// <summary>The size of the framed EchoMessage that carries <paramref name="payloadLength"/> bytes.</summary>
    public static int FramedSize(int payloadLength) => PrefixSize + MessageSize(payloadLength);

    private static int MessageSize(int payloadLength) => payloadLength == 0 ? 0 : 1 + VarintSize((uint)payloadLength) + payloadLength;

    /// <summary>Writes the framed message into <paramref name="destination"/> (at least <see cref="FramedSize"/> bytes); returns its size.</summary>
    public static int Write(Span<byte> destination, ReadOnlySpan<byte> payload)
    {
        int messageSize = MessageSize(payload.Length);
        destination[0] = 0; // not compressed
        BinaryPrimitives.WriteUInt32BigEndian(destination[1..], (uint)messageSize);
        if (payload.IsEmpty)
        {
            return PrefixSize; // proto3: an empty bytes field is not written at all
        }
        int at = PrefixSize;
        destination[at++] = PayloadTag;
        for (uint v = (uint)payload.Length; ; v >>= 7)
        {
            if (v < 0x80)
            {
                destination[at++] = (byte)v;
                break;
            }
            destination[at++] = (byte)(v | 0x80);
        }
        payload.CopyTo(destination[at..]);
        return at + payload.Length;
    }

    /// <summary>The message length a gRPC prefix announces, checked against <paramref name="limit"/>.</summary>
    public static int ReadPrefix(ReadOnlySpan<byte> prefix, int limit)
    {
        if (prefix[0] != 0)
        {
            throw new Core.TransportException("compressed gRPC messages are not supported");
        }
        uint length = BinaryPrimitives.ReadUInt32BigEndian(prefix[1..]);
        return length <= (uint)limit ? (int)length : throw new Core.FrameTooLargeException((int)Math.Min(length, int.MaxValue), limit);
    }

    /// <summary>The payload field of an EchoMessage (unknown fields are skipped, as protobuf requires).</summary>
    public static ReadOnlySpan<byte> Payload(ReadOnlySpan<byte> message)
    {
        ReadOnlySpan<byte> payload = default;
        int at = 0;
        while (at < message.Length)
        {
            ulong key = ReadVarint(message, ref at);
            int wireType = (int)(key & 7);
            switch (wireType)
            {
                case 0:
                    ReadVarint(message, ref at);
                    break;
                case 1:
                    at += 8;
                    break;
                case 5:
                    at += 4;
                    break;
                case 2:
                    int length = checked((int)ReadVarint(message, ref at));
                    if (length < 0 || at + length > message.Length)
                    {
                        throw new Core.TransportException("malformed EchoMessage: a field runs past the message");
                    }
                    if (key >> 3 == 1)
                    {
                        payload = message.Slice(at, length);
                    }
                    at += length;
                    break;
                default:
                    throw new Core.TransportException($"malformed EchoMessage: wire type {wireType}");
            }
        }
        return at == message.Length ? payload : throw new Core.TransportException("malformed EchoMessage: truncated");
    }

    private static ulong ReadVarint(ReadOnlySpan<byte> data, ref int at)
    {
        ulong value = 0;
        for (int shift = 0; shift < 64; shift += 7)
        {
            if (at >= data.Length)
            {
                throw new Core.TransportException("malformed EchoMessage: truncated varint");
            }
            byte b = data[at++];
            value |= (ulong)(b & 0x7F) << shift;
            if (b < 0x80)
            {
                return value;
            }
        }
        throw new Core.TransportException("malformed EchoMessage: varint too long");
    }

    private static int VarintSize(uint value)
    {
        int size = 1;
        while (value >= 0x80)
        {
            value >>= 7;
            size++;
        }
        return size;
    }
}
