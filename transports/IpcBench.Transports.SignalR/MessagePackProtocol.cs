using System.Buffers;
using System.Diagnostics.CodeAnalysis;
using System.Runtime.ExceptionServices;
using Microsoft.AspNetCore.Connections;
using Microsoft.AspNetCore.SignalR;
using Microsoft.AspNetCore.SignalR.Protocol;

namespace IpcBench.Transports.SignalR;

/// <summary>
/// SignalR's MessagePack hub protocol ("messagepack", version 2), written from its specification
/// (aspnetcore's src/SignalR/docs/specs/HubProtocol.md, "MessagePack (MsgPack) encoding") because the
/// Microsoft.AspNetCore.SignalR.Protocols.MessagePack package and the MessagePack library it builds on
/// cannot be restored here. On the wire it is the real protocol: each message is a VarInt length and
/// one MessagePack array, and a client or server using Microsoft's implementation can talk to it.
/// Values (arguments and results) are the types an echo hub needs: byte arrays (bin), strings,
/// integers, booleans and nil; any other type is refused with a clear error.
/// </summary>
internal sealed class MessagePackProtocol : IHubProtocol
{
    private const int MaxVarIntSize = 5;
    private const int InvocationType = 1, StreamItemType = 2, CompletionType = 3, StreamInvocationType = 4,
        CancelInvocationType = 5, PingType = 6, CloseType = 7, AckType = 8, SequenceType = 9;
    private const int ErrorResult = 1, VoidResult = 2, NonVoidResult = 3;

    public string Name => "messagepack";
    public int Version => 2;
    public TransferFormat TransferFormat => TransferFormat.Binary;

    public bool IsVersionSupported(int version) => version <= Version;

    public bool TryParseMessage(ref ReadOnlySequence<byte> input, IInvocationBinder binder, [NotNullWhen(true)] out HubMessage? message)
    {
        message = null;
        if (!TryReadVarInt(input, out int length, out int prefix) || input.Length < prefix + length)
        {
            return false; // the rest has not arrived yet
        }
        var body = input.Slice(prefix, length);
        if (body.IsSingleSegment)
        {
            message = Parse(body.FirstSpan, binder);
        }
        else
        {
            byte[] copy = ArrayPool<byte>.Shared.Rent(length);
            try
            {
                body.CopyTo(copy);
                message = Parse(copy.AsSpan(0, length), binder);
            }
            finally
            {
                ArrayPool<byte>.Shared.Return(copy);
            }
        }
        input = input.Slice(body.End);
        return true;
    }

    public void WriteMessage(HubMessage message, IBufferWriter<byte> output)
    {
        using var body = Serialize(message);
        var span = output.GetSpan(MaxVarIntSize + body.Written.Length);
        int prefix = WriteVarInt(span, body.Written.Length);
        body.Written.CopyTo(span[prefix..]);
        output.Advance(prefix + body.Written.Length);
    }

    public ReadOnlyMemory<byte> GetMessageBytes(HubMessage message)
    {
        using var body = Serialize(message);
        byte[] bytes = new byte[MaxVarIntSize + body.Written.Length];
        int prefix = WriteVarInt(bytes, body.Written.Length);
        body.Written.CopyTo(bytes.AsSpan(prefix));
        return bytes.AsMemory(0, prefix + body.Written.Length);
    }

    private static MsgPackWriter Serialize(HubMessage message)
    {
        var writer = new MsgPackWriter(256);
        try
        {
            switch (message)
            {
                case InvocationMessage m:
                    WriteInvocation(ref writer, InvocationType, m);
                    break;
                case StreamInvocationMessage m:
                    WriteInvocation(ref writer, StreamInvocationType, m);
                    break;
                case StreamItemMessage m:
                    writer.WriteArrayHeader(4);
                    writer.Write(StreamItemType);
                    WriteHeaders(ref writer, m.Headers);
                    writer.Write(m.InvocationId);
                    WriteValue(ref writer, m.Item);
                    break;
                case CompletionMessage m:
                    int kind = m.Error is not null ? ErrorResult : m.HasResult ? NonVoidResult : VoidResult;
                    writer.WriteArrayHeader(kind == VoidResult ? 4 : 5);
                    writer.Write(CompletionType);
                    WriteHeaders(ref writer, m.Headers);
                    writer.Write(m.InvocationId);
                    writer.Write(kind);
                    if (kind == ErrorResult)
                    {
                        writer.Write(m.Error);
                    }
                    else if (kind == NonVoidResult)
                    {
                        WriteValue(ref writer, m.Result);
                    }
                    break;
                case CancelInvocationMessage m:
                    writer.WriteArrayHeader(3);
                    writer.Write(CancelInvocationType);
                    WriteHeaders(ref writer, m.Headers);
                    writer.Write(m.InvocationId);
                    break;
                case PingMessage:
                    writer.WriteArrayHeader(1);
                    writer.Write(PingType);
                    break;
                case CloseMessage m:
                    writer.WriteArrayHeader(3);
                    writer.Write(CloseType);
                    writer.Write(m.Error);
                    writer.Write(m.AllowReconnect);
                    break;
                case AckMessage m:
                    writer.WriteArrayHeader(2);
                    writer.Write(AckType);
                    writer.Write(m.SequenceId);
                    break;
                case SequenceMessage m:
                    writer.WriteArrayHeader(2);
                    writer.Write(SequenceType);
                    writer.Write(m.SequenceId);
                    break;
                default:
                    throw new InvalidOperationException($"the MessagePack hub protocol has no encoding for {message.GetType().Name}");
            }
            return writer;
        }
        catch
        {
            writer.Dispose();
            throw;
        }
    }

    private static void WriteInvocation(ref MsgPackWriter writer, int type, HubMethodInvocationMessage m)
    {
        writer.WriteArrayHeader(6);
        writer.Write(type);
        WriteHeaders(ref writer, m.Headers);
        writer.Write(m.InvocationId);
        writer.Write(m.Target);
        writer.WriteArrayHeader(m.Arguments.Length);
        foreach (object? argument in m.Arguments)
        {
            WriteValue(ref writer, argument);
        }
        string[] streamIds = m.StreamIds ?? [];
        writer.WriteArrayHeader(streamIds.Length);
        foreach (string id in streamIds)
        {
            writer.Write(id);
        }
    }

    private static void WriteHeaders(ref MsgPackWriter writer, IDictionary<string, string>? headers)
    {
        writer.WriteMapHeader(headers?.Count ?? 0);
        foreach (var (key, value) in headers ?? new Dictionary<string, string>())
        {
            writer.Write(key);
            writer.Write(value);
        }
    }

    private static void WriteValue(ref MsgPackWriter writer, object? value)
    {
        switch (value)
        {
            case null: writer.WriteNil(); break;
            case byte[] bytes: writer.Write(bytes); break;
            case string text: writer.Write(text); break;
            case bool flag: writer.Write(flag); break;
            case int or long or short or sbyte or byte or ushort or uint:
                writer.Write(Convert.ToInt64(value, System.Globalization.CultureInfo.InvariantCulture));
                break;
            default: throw new NotSupportedException($"IpcBench's MessagePack hub protocol carries byte[], string, integers and bool, not {value.GetType().Name}");
        }
    }

    private static HubMessage Parse(ReadOnlySpan<byte> body, IInvocationBinder binder)
    {
        var reader = new MsgPackReader(body);
        int count = reader.ReadArrayHeader();
        int type = reader.ReadInt32();
        return type switch
        {
            InvocationType => ParseInvocation(ref reader, count, binder),
            StreamInvocationType => throw new InvalidDataException("streaming invocations are not part of IpcBench's echo hub"),
            StreamItemType => ParseStreamItem(ref reader, binder),
            CompletionType => ParseCompletion(ref reader, count, binder),
            CancelInvocationType => ParseCancelInvocation(ref reader),
            PingType => PingMessage.Instance,
            CloseType => new CloseMessage(reader.ReadString(), count > 2 && reader.ReadBoolean()),
            AckType => new AckMessage(reader.ReadInt64()),
            SequenceType => new SequenceMessage(reader.ReadInt64()),
            _ => throw new InvalidDataException($"unknown hub message type {type}"),
        };
    }

    private static HubMessage ParseInvocation(ref MsgPackReader reader, int count, IInvocationBinder binder)
    {
        var headers = ReadHeaders(ref reader);
        string? invocationId = reader.ReadString();
        string target = RequiredString(ref reader, "a target");
        try
        {
            var types = binder.GetParameterTypes(target);
            int arguments = reader.ReadArrayHeader();
            if (arguments != types.Count)
            {
                throw new InvalidDataException($"invocation provides {arguments} argument(s) but target expects {types.Count}");
            }
            object?[] values = new object?[arguments];
            for (int i = 0; i < arguments; i++)
            {
                values[i] = ReadValue(ref reader, types[i]);
            }
            string[]? streamIds = count > 5 ? ReadStreamIds(ref reader) : null;
            return new InvocationMessage(invocationId, target, values, streamIds) { Headers = headers };
        }
        catch (Exception e)
        {
            // A call the hub cannot bind (unknown method, wrong arguments) fails alone: the length prefix
            // already delimits the message, so the connection reads on.
            return new InvocationBindingFailureMessage(invocationId ?? "", target, ExceptionDispatchInfo.Capture(e));
        }
    }

    private static CancelInvocationMessage ParseCancelInvocation(ref MsgPackReader reader)
    {
        var headers = ReadHeaders(ref reader);
        return new CancelInvocationMessage(RequiredString(ref reader, "an invocation id")) { Headers = headers };
    }

    private static StreamItemMessage ParseStreamItem(ref MsgPackReader reader, IInvocationBinder binder)
    {
        var headers = ReadHeaders(ref reader);
        string id = RequiredString(ref reader, "a stream id");
        return new StreamItemMessage(id, ReadValue(ref reader, binder.GetStreamItemType(id))) { Headers = headers };
    }

    private static CompletionMessage ParseCompletion(ref MsgPackReader reader, int count, IInvocationBinder binder)
    {
        var headers = ReadHeaders(ref reader);
        string id = RequiredString(ref reader, "an invocation id");
        int kind = reader.ReadInt32();
        var message = kind switch
        {
            ErrorResult when count > 4 => CompletionMessage.WithError(id, reader.ReadString() ?? ""),
            VoidResult => CompletionMessage.Empty(id),
            NonVoidResult when count > 4 => CompletionMessage.WithResult(id, ReadValue(ref reader, binder.GetReturnType(id))),
            _ => throw new InvalidDataException($"completion of kind {kind} with {count} items is malformed"),
        };
        message.Headers = headers;
        return message;
    }

    private static object? ReadValue(ref MsgPackReader reader, Type type)
    {
        if (reader.TryReadNil())
        {
            return null;
        }
        if (type == typeof(byte[]))
        {
            return reader.ReadBinary().ToArray();
        }
        if (type == typeof(string))
        {
            return reader.ReadString();
        }
        if (type == typeof(bool))
        {
            return reader.ReadBoolean();
        }
        if (type == typeof(int) || type == typeof(long) || type == typeof(object))
        {
            long value = reader.ReadInt64();
            return type == typeof(int) ? (object)checked((int)value) : value;
        }
        throw new InvalidDataException($"IpcBench's MessagePack hub protocol carries byte[], string, integers and bool, not {type.Name}");
    }

    private static Dictionary<string, string>? ReadHeaders(ref MsgPackReader reader)
    {
        int count = reader.ReadMapHeader();
        if (count == 0)
        {
            return null;
        }
        var headers = new Dictionary<string, string>(count);
        for (int i = 0; i < count; i++)
        {
            headers[RequiredString(ref reader, "a header name")] = RequiredString(ref reader, "a header value");
        }
        return headers;
    }

    private static string[] ReadStreamIds(ref MsgPackReader reader)
    {
        string[] ids = new string[reader.ReadArrayHeader()];
        for (int i = 0; i < ids.Length; i++)
        {
            ids[i] = RequiredString(ref reader, "a stream id");
        }
        return ids;
    }

    private static string RequiredString(ref MsgPackReader reader, string what) =>
        reader.ReadString() ?? throw new InvalidDataException($"expected {what}, found nil");

    /// <summary>The message length: 7 bits a byte, least significant first, at most 5 bytes (spec: "VarInt").</summary>
    private static bool TryReadVarInt(ReadOnlySequence<byte> input, out int value, out int size)
    {
        value = 0;
        size = 0;
        var reader = new SequenceReader<byte>(input);
        uint result = 0;
        for (int shift = 0; reader.TryRead(out byte b); shift += 7)
        {
            size++;
            if (size == MaxVarIntSize && b > 0x07)
            {
                throw new InvalidDataException("a message length over 2 GiB");
            }
            result |= (uint)(b & 0x7f) << shift;
            if (b < 0x80)
            {
                value = (int)result;
                return true;
            }
        }
        return false;
    }

    private static int WriteVarInt(Span<byte> destination, int value)
    {
        int size = 0;
        uint v = (uint)value;
        for (; v >= 0x80; v >>= 7)
        {
            destination[size++] = (byte)(v | 0x80);
        }
        destination[size++] = (byte)v;
        return size;
    }
}
