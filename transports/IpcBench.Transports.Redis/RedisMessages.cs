using System.Buffers.Binary;
using System.Text;
using IpcBench.Contract;

namespace IpcBench.Transports.Redis;

/// <summary>
/// What a pub/sub message carries, since Redis gives it nothing but a channel and a body. A request: the length of
/// the client's reply channel (one byte), that channel's name (UTF-8), an 8-byte id, the payload. A reply: the
/// request's id, the payload. The id lets one client have several requests in flight on its one reply channel.
/// </summary>
internal static class RedisMessages
{
    public const int IdLength = sizeof(long);
    public const int MaxChannelLength = byte.MaxValue;

    public static int RequestLength(ReadOnlySpan<byte> replyChannel, int payload) => 1 + replyChannel.Length + IdLength + payload;

    public static int WriteRequest(Span<byte> message, ReadOnlySpan<byte> replyChannel, long id, ReadOnlySpan<byte> payload)
    {
        message[0] = (byte)replyChannel.Length;
        replyChannel.CopyTo(message[1..]);
        int offset = 1 + replyChannel.Length;
        BinaryPrimitives.WriteInt64LittleEndian(message[offset..], id);
        payload.CopyTo(message[(offset + IdLength)..]);
        return offset + IdLength + payload.Length;
    }

    /// <summary>Splits a request; a message too short for its own header is refused, whoever sent it.</summary>
    public static (ReadOnlyMemory<byte> ReplyChannel, long Id, ReadOnlyMemory<byte> Payload) ReadRequest(ReadOnlyMemory<byte> message)
    {
        var span = message.Span;
        if (span.Length < 1 || span.Length < 1 + span[0] + IdLength || span[0] == 0)
        {
            throw new TransportException($"a request of {message.Length} B is shorter than its header (reply channel, id)");
        }
        int offset = 1 + span[0];
        return (message.Slice(1, span[0]), BinaryPrimitives.ReadInt64LittleEndian(span[offset..]), message[(offset + IdLength)..]);
    }

    /// <summary>How every reply channel of a server's clients begins; a server answers on no other channel.</summary>
    public static string ReplyChannelPrefix(string serverChannel) => $"{serverChannel}.reply.";

    public static byte[] ChannelName(string channel)
    {
        byte[] name = Encoding.UTF8.GetBytes(channel);
        return name.Length <= MaxChannelLength ? name
            : throw new ArgumentException($"a reply channel name is at most {MaxChannelLength} bytes: {channel}");
    }
}
