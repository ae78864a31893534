using System.Buffers.Binary;
using System.Buffers.Text;
using System.Text;
using IpcBench.Kit;

namespace IpcBench.Transports.JsonRpc;

/// <summary>How a message handler frames its messages, as far as their lengths go.</summary>
internal enum MessageFraming
{
    /// <summary>LengthHeaderMessageHandler: a 4-byte big-endian length, then the message.</summary>
    LengthHeader,

    /// <summary>HeaderDelimitedMessageHandler: HTTP-like header lines with Content-Length, a blank line, then the message.</summary>
    ContentLengthHeaders,
}

/// <summary>
/// StreamJsonRpc has no limit on a message it receives (microsoft/vs-streamjsonrpc#326): it buffers what a header
/// announces until all of it is there. This stream sits under a server's message handler, follows the framing as the
/// bytes pass, and fails the read that brings a header announcing more than the limit (or header lines longer than any
/// client writes): StreamJsonRpc then ends that connection, and no other connection notices.
/// </summary>
internal sealed class MessageSizeGuard(Stream inner, MessageFraming framing, long limit, string server) : Stream
{
    private const int MaxHeaderBytes = 1024;

    private readonly byte[] _header = new byte[framing == MessageFraming.LengthHeader ? 4 : MaxHeaderBytes];
    private int _headerLength;
    private long _bodyLeft;

    public override int Read(byte[] buffer, int offset, int count) => Read(buffer.AsSpan(offset, count));

    public override int Read(Span<byte> buffer)
    {
        int n = inner.Read(buffer);
        Follow(buffer[..n]);
        return n;
    }

    public override Task<int> ReadAsync(byte[] buffer, int offset, int count, CancellationToken ct) =>
        ReadAsync(buffer.AsMemory(offset, count), ct).AsTask();

    public override async ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken ct = default)
    {
        int n = await inner.ReadAsync(buffer, ct).ConfigureAwait(false);
        Follow(buffer.Span[..n]);
        return n;
    }

    /// <summary>Skips message bytes, collects header bytes, and checks each header once it is complete.</summary>
    private void Follow(ReadOnlySpan<byte> bytes)
    {
        while (bytes.Length > 0)
        {
            if (_bodyLeft > 0)
            {
                int skipped = (int)Math.Min(_bodyLeft, bytes.Length);
                _bodyLeft -= skipped;
                bytes = bytes[skipped..];
                continue;
            }
            if (_headerLength == _header.Length)
            {
                throw Refuse($"header lines over {MaxHeaderBytes} B");
            }
            _header[_headerLength++] = bytes[0];
            bytes = bytes[1..];
            if (AnnouncedLength() is long length)
            {
                _headerLength = 0;
                _bodyLeft = length <= limit ? length : throw Refuse($"a message of {length} B, over the limit of {limit} B");
            }
        }
    }

    /// <summary>The length a complete header announces; null while the header is incomplete.</summary>
    private long? AnnouncedLength()
    {
        if (framing == MessageFraming.LengthHeader)
        {
            return _headerLength == 4 ? BinaryPrimitives.ReadUInt32BigEndian(_header) : null;
        }
        if (_headerLength < 4 || !_header.AsSpan(_headerLength - 4, 4).SequenceEqual("\r\n\r\n"u8))
        {
            return null;
        }
        // Read in place, on the server's path of every request: no string, no allocation.
        ReadOnlySpan<byte> header = _header.AsSpan(0, _headerLength);
        foreach (Range range in header.Split("\r\n"u8))
        {
            var line = header[range];
            int colon = line.IndexOf((byte)':');
            if (colon > 0 && Ascii.EqualsIgnoreCase(line[..colon].Trim((byte)' '), "Content-Length"u8))
            {
                var value = line[(colon + 1)..].Trim((byte)' ');
                return Utf8Parser.TryParse(value, out long length, out int used) && used == value.Length && length >= 0
                    ? length
                    : throw Refuse($"a Content-Length of '{Encoding.ASCII.GetString(value)}'");
            }
        }
        return 0; // no length: StreamJsonRpc refuses such a message itself
    }

    private IOException Refuse(string what)
    {
        Log.Warn($"dropped a connection to {server}: it sent {what}");
        return new IOException($"{what}: the connection is dropped");
    }

    public override void Write(byte[] buffer, int offset, int count) => inner.Write(buffer, offset, count);

    public override void Write(ReadOnlySpan<byte> buffer) => inner.Write(buffer);

    public override Task WriteAsync(byte[] buffer, int offset, int count, CancellationToken ct) => inner.WriteAsync(buffer, offset, count, ct);

    public override ValueTask WriteAsync(ReadOnlyMemory<byte> buffer, CancellationToken ct = default) => inner.WriteAsync(buffer, ct);

    public override void Flush() => inner.Flush();

    public override Task FlushAsync(CancellationToken ct) => inner.FlushAsync(ct);

    public override bool CanRead => true;

    public override bool CanWrite => true;

    public override bool CanSeek => false;

    public override long Length => throw new NotSupportedException();

    public override long Position { get => throw new NotSupportedException(); set => throw new NotSupportedException(); }

    public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

    public override void SetLength(long value) => throw new NotSupportedException();

    protected override void Dispose(bool disposing)
    {
        if (disposing)
        {
            inner.Dispose();
        }
        base.Dispose(disposing);
    }

    public override ValueTask DisposeAsync() => inner.DisposeAsync();
}
