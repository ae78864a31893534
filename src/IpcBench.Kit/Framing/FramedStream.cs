using System.Net.Sockets;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using IpcBench.Contract;

namespace IpcBench.Kit.Framing;

/// <summary>
/// Length-prefixed messages over any byte stream: the single read loop and the single writer of the
/// wire format in <see cref="LengthPrefix"/>. Each operation has a blocking form (for a dedicated
/// thread, fewest hops) and an async form (the thread pool); both allocate nothing in steady state.
/// <para>
/// Reads go through a small buffer, so a small message costs one read call for header and payload
/// together; a large payload's tail is read straight into its destination. Bytes beyond the current
/// message stay buffered for the next one, so a pipelining peer is handled correctly too.
/// </para>
/// <para>A server can take a request whole from that buffer (<see cref="TryTakeBuffered"/>) and build its reply in the
/// write buffer (<see cref="PreparePayload"/>): an echo of a small message is then one copy.</para>
/// <para>Writes copy header and payload into one buffer and issue a single write: one syscall, and no
/// half-message left waiting in the kernel. A large payload written blocking to a socket is not copied: it goes behind
/// its header in one gathered write (<see cref="GatherFrom"/>). With <c>splitWrites</c> the header and the payload are two
/// writes, as much hand-written framing code does: with Nagle's algorithm on, the payload then waits
/// for the ACK of the header, which the peer delays (the classic 40 ms stall).</para>
/// </summary>
public sealed class FramedStream : IDisposable
{
    private const int ReadBufferSize = 16 * 1024;

    private readonly Stream _stream;
    private readonly int _maxPayload;
    private readonly bool _splitWrites;
    private readonly byte[] _readBuffer = new byte[ReadBufferSize];
    private int _readStart;
    private int _readEnd;
    private byte[] _writeBuffer = new byte[LengthPrefix.HeaderSize + 1024];
    // For gathered writes: the socket under a NetworkStream, and the header and payload as the two buffers of one sendmsg.
    private readonly Socket? _socket;
    private readonly ArraySegment<byte>[] _gather = [new byte[LengthPrefix.HeaderSize], default];

    /// <summary>
    /// The payload size from which <see cref="Write"/> sends header and payload as one gathered write instead of copying
    /// the payload behind the header: the copy grows with the size, while a gathered send costs a fixed sum (.NET pins
    /// each buffer for it), which only a large payload's copy outweighs: 64 KB is where it paid, measured
    /// (docs/wire-format.md, byte-stream transports).
    /// </summary>
    public const int GatherFrom = 64 * 1024;

    public FramedStream(Stream stream, int maxPayload = LengthPrefix.DefaultMaxPayload, bool splitWrites = false)
    {
        _stream = stream;
        _maxPayload = maxPayload;
        _splitWrites = splitWrites;
        _socket = splitWrites ? null : (stream as NetworkStream)?.Socket;
    }

    public Stream Stream => _stream;

    private int Buffered => _readEnd - _readStart;

    // ---- writing ---------------------------------------------------------------------------------

    /// <summary>
    /// Room for a payload of at least <paramref name="capacity"/> bytes (up to the limit), to be filled and sent with
    /// <see cref="WritePrepared"/>: lets a server build its reply in place, without another copy.
    /// </summary>
    public Span<byte> PreparePayload(int capacity)
    {
        EnsureWriteCapacity(capacity);
        return _writeBuffer.AsSpan(LengthPrefix.HeaderSize, Math.Min(_writeBuffer.Length - LengthPrefix.HeaderSize, _maxPayload));
    }

    public void WritePrepared(int payloadLength)
    {
        var message = Seal(payloadLength);
        if (_splitWrites)
        {
            _stream.Write(message.AsSpan(0, LengthPrefix.HeaderSize));
            _stream.Write(message.AsSpan(LengthPrefix.HeaderSize));
            return;
        }
        _stream.Write(message);
    }

    public ValueTask WritePreparedAsync(int payloadLength, CancellationToken ct)
    {
        var message = Seal(payloadLength).AsMemory();
        return _splitWrites ? WriteSplitAsync(message, ct) : _stream.WriteAsync(message, ct);
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    private async ValueTask WriteSplitAsync(ReadOnlyMemory<byte> message, CancellationToken ct)
    {
        await _stream.WriteAsync(message[..LengthPrefix.HeaderSize], ct).ConfigureAwait(false);
        await _stream.WriteAsync(message[LengthPrefix.HeaderSize..], ct).ConfigureAwait(false);
    }

    /// <summary>
    /// Sends one message, blocking. A payload of <see cref="GatherFrom"/> bytes or more in an array, over a socket, goes out
    /// behind its header in one gathered write (Socket.Send with two buffers: one sendmsg, no copy); any other is copied
    /// behind the header into the write buffer.
    /// </summary>
    public void Write(ReadOnlyMemory<byte> payload)
    {
        if (_socket is not null && payload.Length >= GatherFrom && MemoryMarshal.TryGetArray(payload, out var array))
        {
            FrameTooLargeException.ThrowIfTooLarge(payload.Length, _maxPayload);
            var header = _gather[0];
            LengthPrefix.Write(header, payload.Length);
            _gather[1] = array;
            int total = header.Count + array.Count;
            // A blocking send returns once it sent every byte of both buffers; were it ever to return short, the rest follows.
            for (int sent = _socket.Send(_gather); sent < total;)
            {
                sent += sent < header.Count ? _socket.Send(header.AsSpan(sent)) : _socket.Send(array.AsSpan(sent - header.Count));
            }
            return;
        }
        payload.Span.CopyTo(PreparePayload(payload.Length));
        WritePrepared(payload.Length);
    }

    /// <summary>
    /// Sends one message, copied behind its header. Not gathered: Socket's gathered SendAsync takes no cancellation token,
    /// and a send that a peer's full window holds up must end with the request's deadline.
    /// </summary>
    public ValueTask WriteAsync(ReadOnlyMemory<byte> payload, CancellationToken ct)
    {
        payload.Span.CopyTo(PreparePayload(payload.Length));
        return WritePreparedAsync(payload.Length, ct);
    }

    private ArraySegment<byte> Seal(int payloadLength)
    {
        LengthPrefix.Write(_writeBuffer, payloadLength);
        return new ArraySegment<byte>(_writeBuffer, 0, LengthPrefix.HeaderSize + payloadLength);
    }

    private void EnsureWriteCapacity(int payloadLength)
    {
        FrameTooLargeException.ThrowIfTooLarge(payloadLength, _maxPayload);
        int needed = LengthPrefix.HeaderSize + payloadLength;
        if (_writeBuffer.Length < needed)
        {
            _writeBuffer = new byte[Math.Max(needed, Math.Min(2 * _writeBuffer.Length, LengthPrefix.HeaderSize + _maxPayload))];
        }
    }

    // ---- reading ---------------------------------------------------------------------------------

    /// <summary>Reads the next header and returns its payload length, checked against the limit.</summary>
    /// <exception cref="EndOfStreamException">The peer closed the stream.</exception>
    /// <exception cref="FrameTooLargeException">The announced length exceeds the limit; the stream is unusable.</exception>
    public int ReadHeader()
    {
        if (Buffered < LengthPrefix.HeaderSize)
        {
            Fill(LengthPrefix.HeaderSize);
        }
        return ConsumeHeader();
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public async ValueTask<int> ReadHeaderAsync(CancellationToken ct)
    {
        if (Buffered < LengthPrefix.HeaderSize)
        {
            await FillAsync(LengthPrefix.HeaderSize, ct).ConfigureAwait(false);
        }
        return ConsumeHeader();
    }

    /// <summary>Reads exactly <c>destination.Length</c> payload bytes (the length the header gave).</summary>
    public void ReadPayload(Span<byte> destination)
    {
        Span<byte> rest = destination[TakeBuffered(destination)..];
        if (rest.IsEmpty)
        {
            return;
        }
        if (rest.Length >= _readBuffer.Length / 2)
        {
            _stream.ReadExactly(rest); // large: straight into place, one copy fewer
            return;
        }
        Fill(rest.Length);
        TakeBuffered(rest);
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    public async ValueTask ReadPayloadAsync(Memory<byte> destination, CancellationToken ct)
    {
        Memory<byte> rest = destination[TakeBuffered(destination.Span)..];
        if (rest.IsEmpty)
        {
            return;
        }
        if (rest.Length >= _readBuffer.Length / 2)
        {
            await _stream.ReadExactlyAsync(rest, ct).ConfigureAwait(false);
            return;
        }
        await FillAsync(rest.Length, ct).ConfigureAwait(false);
        TakeBuffered(rest.Span);
    }

    /// <summary>
    /// The next <paramref name="length"/> payload bytes where they already are, whole in the read buffer: consumed, and
    /// valid until the next read. False, with nothing consumed, while some have yet to arrive. A server answers from
    /// here without copying the request out first.
    /// </summary>
    public bool TryTakeBuffered(int length, out ReadOnlySpan<byte> payload)
    {
        if (Buffered < length)
        {
            payload = default;
            return false;
        }
        payload = _readBuffer.AsSpan(_readStart, length);
        _readStart += length;
        return true;
    }

    /// <summary>Reads one whole message into <paramref name="destination"/> and returns its length.</summary>
    public int ReadMessage(Span<byte> destination)
    {
        int length = ReadHeader();
        ReadPayload(destination[..CheckFits(length, destination.Length)]);
        return length;
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public async ValueTask<int> ReadMessageAsync(Memory<byte> destination, CancellationToken ct)
    {
        int length = await ReadHeaderAsync(ct).ConfigureAwait(false);
        await ReadPayloadAsync(destination[..CheckFits(length, destination.Length)], ct).ConfigureAwait(false);
        return length;
    }

    private static int CheckFits(int length, int room) =>
        length <= room ? length : throw new FrameTooLargeException(length, room);

    private int ConsumeHeader()
    {
        int length = LengthPrefix.Read(_readBuffer.AsSpan(_readStart, LengthPrefix.HeaderSize), _maxPayload);
        _readStart += LengthPrefix.HeaderSize;
        return length;
    }

    private int TakeBuffered(Span<byte> destination)
    {
        int n = Math.Min(Buffered, destination.Length);
        _readBuffer.AsSpan(_readStart, n).CopyTo(destination);
        _readStart += n;
        return n;
    }

    /// <summary>Reads until at least <paramref name="count"/> bytes are buffered (count &lt;= buffer size).</summary>
    private void Fill(int count)
    {
        Compact(count);
        while (Buffered < count)
        {
            _readEnd += CheckNotEnd(_stream.Read(_readBuffer, _readEnd, _readBuffer.Length - _readEnd));
        }
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder))]
    private async ValueTask FillAsync(int count, CancellationToken ct)
    {
        Compact(count);
        while (Buffered < count)
        {
            _readEnd += CheckNotEnd(await _stream.ReadAsync(_readBuffer.AsMemory(_readEnd), ct).ConfigureAwait(false));
        }
    }

    private void Compact(int count)
    {
        if (Buffered == 0)
        {
            _readStart = _readEnd = 0;
        }
        else if (_readBuffer.Length - _readStart < count)
        {
            Buffer.BlockCopy(_readBuffer, _readStart, _readBuffer, 0, Buffered);
            _readEnd = Buffered;
            _readStart = 0;
        }
    }

    private static int CheckNotEnd(int read) => read > 0 ? read : throw new EndOfStreamException("the peer closed the connection");

    public void Dispose() => _stream.Dispose();
}
