using System.Buffers;
using System.Buffers.Binary;
using System.Text;

namespace IpcBench.Transports.SignalR;

/// <summary>
/// Writes the MessagePack formats the SignalR hub protocol uses (arrays, maps, nil, booleans,
/// integers, strings, bin) into a growing pooled buffer, always in the shortest form.
/// See https://github.com/msgpack/msgpack/blob/master/spec.md#formats.
/// </summary>
internal struct MsgPackWriter : IDisposable
{
    private byte[] _buffer;
    private int _length;

    public MsgPackWriter(int capacity)
    {
        _buffer = ArrayPool<byte>.Shared.Rent(capacity);
        _length = 0;
    }

    public readonly ReadOnlySpan<byte> Written => _buffer.AsSpan(0, _length);

    public void WriteArrayHeader(int count) => WriteHeader(count, 0x90, 16, 0xdc, 0xdd);

    public void WriteMapHeader(int count) => WriteHeader(count, 0x80, 16, 0xde, 0xdf);

    public void WriteNil() => Take(1)[0] = 0xc0;

    public void Write(bool value) => Take(1)[0] = value ? (byte)0xc3 : (byte)0xc2;

    public void Write(long value)
    {
        if (value is >= 0 and < 128 or >= -32 and < 0)
        {
            Take(1)[0] = (byte)value; // positive or negative fixint
        }
        else if (value is >= sbyte.MinValue and <= sbyte.MaxValue)
        {
            var s = Take(2);
            s[0] = 0xd0;
            s[1] = (byte)value;
        }
        else if (value is >= short.MinValue and <= short.MaxValue)
        {
            var s = Take(3);
            s[0] = 0xd1;
            BinaryPrimitives.WriteInt16BigEndian(s[1..], (short)value);
        }
        else if (value is >= int.MinValue and <= int.MaxValue)
        {
            var s = Take(5);
            s[0] = 0xd2;
            BinaryPrimitives.WriteInt32BigEndian(s[1..], (int)value);
        }
        else
        {
            var s = Take(9);
            s[0] = 0xd3;
            BinaryPrimitives.WriteInt64BigEndian(s[1..], value);
        }
    }

    public void Write(string? value)
    {
        if (value is null)
        {
            WriteNil();
            return;
        }
        int length = Encoding.UTF8.GetByteCount(value);
        if (length < 32)
        {
            Take(1)[0] = (byte)(0xa0 | length);
        }
        else
        {
            WriteLength(length, 0xd9, 0xda, 0xdb);
        }
        Encoding.UTF8.GetBytes(value, Take(length));
    }

    public void Write(ReadOnlySpan<byte> bin)
    {
        WriteLength(bin.Length, 0xc4, 0xc5, 0xc6);
        bin.CopyTo(Take(bin.Length));
    }

    private void WriteHeader(int count, byte fix, int fixLimit, byte code16, byte code32)
    {
        if (count < fixLimit)
        {
            Take(1)[0] = (byte)(fix | count);
            return;
        }
        var s = Take(count <= ushort.MaxValue ? 3 : 5);
        s[0] = count <= ushort.MaxValue ? code16 : code32;
        WriteBigEndian(s[1..], count);
    }

    /// <summary>A length in the 8-, 16- or 32-bit form (str and bin).</summary>
    private void WriteLength(int length, byte code8, byte code16, byte code32)
    {
        var s = Take(length <= byte.MaxValue ? 2 : length <= ushort.MaxValue ? 3 : 5);
        s[0] = length <= byte.MaxValue ? code8 : length <= ushort.MaxValue ? code16 : code32;
        WriteBigEndian(s[1..], length);
    }

    private static void WriteBigEndian(Span<byte> destination, int value)
    {
        switch (destination.Length)
        {
            case 1: destination[0] = (byte)value; break;
            case 2: BinaryPrimitives.WriteUInt16BigEndian(destination, (ushort)value); break;
            default: BinaryPrimitives.WriteInt32BigEndian(destination, value); break;
        }
    }

    private Span<byte> Take(int count)
    {
        if (_length + count > _buffer.Length)
        {
            byte[] larger = ArrayPool<byte>.Shared.Rent(Math.Max(2 * _buffer.Length, _length + count));
            _buffer.AsSpan(0, _length).CopyTo(larger);
            ArrayPool<byte>.Shared.Return(_buffer);
            _buffer = larger;
        }
        var span = _buffer.AsSpan(_length, count);
        _length += count;
        return span;
    }

    public void Dispose()
    {
        ArrayPool<byte>.Shared.Return(_buffer);
        _buffer = [];
    }
}

/// <summary>
/// Reads the MessagePack formats <see cref="MsgPackWriter"/> writes (in any of their valid lengths).
/// Anything else, or data that ends early, is an <see cref="InvalidDataException"/>.
/// </summary>
internal ref struct MsgPackReader(ReadOnlySpan<byte> data)
{
    private ReadOnlySpan<byte> _data = data;

    public readonly bool End => _data.IsEmpty;

    public bool TryReadNil()
    {
        if (Peek() != 0xc0)
        {
            return false;
        }
        _data = _data[1..];
        return true;
    }

    public int ReadArrayHeader() => ReadHeader(0x90, 0xdc, 0xdd, "an array");

    public int ReadMapHeader() => ReadHeader(0x80, 0xde, 0xdf, "a map");

    public bool ReadBoolean() => Next() switch
    {
        0xc2 => false,
        0xc3 => true,
        var code => throw Unexpected(code, "a boolean"),
    };

    public long ReadInt64()
    {
        byte code = Next();
        return code switch
        {
            < 0x80 or >= 0xe0 => (sbyte)code, // positive and negative fixint
            0xcc => Bytes(1)[0],
            0xcd => BinaryPrimitives.ReadUInt16BigEndian(Bytes(2)),
            0xce => BinaryPrimitives.ReadUInt32BigEndian(Bytes(4)),
            0xcf => checked((long)BinaryPrimitives.ReadUInt64BigEndian(Bytes(8))),
            0xd0 => (sbyte)Bytes(1)[0],
            0xd1 => BinaryPrimitives.ReadInt16BigEndian(Bytes(2)),
            0xd2 => BinaryPrimitives.ReadInt32BigEndian(Bytes(4)),
            0xd3 => BinaryPrimitives.ReadInt64BigEndian(Bytes(8)),
            _ => throw Unexpected(code, "an integer"),
        };
    }

    public int ReadInt32() => checked((int)ReadInt64());

    public string? ReadString()
    {
        if (TryReadNil())
        {
            return null;
        }
        byte code = Next();
        int length = code switch
        {
            >= 0xa0 and <= 0xbf => code & 0x1f,
            0xd9 => Length(1),
            0xda => Length(2),
            0xdb => Length(4),
            _ => throw Unexpected(code, "a string"),
        };
        return Encoding.UTF8.GetString(Bytes(length));
    }

    public ReadOnlySpan<byte> ReadBinary()
    {
        byte code = Next();
        int length = code switch
        {
            0xc4 => Length(1),
            0xc5 => Length(2),
            0xc6 => Length(4),
            _ => throw Unexpected(code, "bin"),
        };
        return Bytes(length);
    }

    private int ReadHeader(byte fix, byte code16, byte code32, string what)
    {
        byte code = Next();
        return code switch
        {
            _ when (code & 0xf0) == fix => code & 0x0f,
            _ when code == code16 => Length(2),
            _ when code == code32 => Length(4),
            _ => throw Unexpected(code, what),
        };
    }

    private int Length(int size)
    {
        var bytes = Bytes(size);
        uint length = size switch
        {
            1 => bytes[0],
            2 => BinaryPrimitives.ReadUInt16BigEndian(bytes),
            _ => BinaryPrimitives.ReadUInt32BigEndian(bytes),
        };
        return length <= int.MaxValue ? (int)length : throw new InvalidDataException($"a MessagePack length of {length} is too large");
    }

    private readonly byte Peek() => _data.IsEmpty ? throw Truncated() : _data[0];

    private byte Next()
    {
        byte code = Peek();
        _data = _data[1..];
        return code;
    }

    private ReadOnlySpan<byte> Bytes(int count)
    {
        if (_data.Length < count)
        {
            throw Truncated();
        }
        var bytes = _data[..count];
        _data = _data[count..];
        return bytes;
    }

    private static InvalidDataException Truncated() => new("the MessagePack message ends early");

    private static InvalidDataException Unexpected(byte code, string expected) =>
        new($"expected {expected} in the MessagePack message, found format 0x{code:x2}");
}
