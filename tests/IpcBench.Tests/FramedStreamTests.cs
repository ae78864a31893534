using System.Buffers.Binary;
using IpcBench.Contract;
using IpcBench.Kit.Framing;

namespace IpcBench.Tests;

public class FramedStreamTests
{
    [Theory]
    [InlineData(0)]
    [InlineData(1)]
    [InlineData(1024)]
    [InlineData(100 * 1024)]
    public void Writes_header_in_network_order_then_payload(int size)
    {
        var stream = new MemoryStream();
        var payload = Enumerable.Range(0, size).Select(i => (byte)i).ToArray();

        new FramedStream(stream).Write(payload);

        byte[] wire = stream.ToArray();
        Assert.Equal(4 + size, wire.Length);
        Assert.Equal((uint)size, BinaryPrimitives.ReadUInt32BigEndian(wire));
        Assert.Equal(payload, wire[4..]);
    }

    [Fact]
    public void Header_for_300_bytes_is_00_00_01_2C()
    {
        var stream = new MemoryStream();
        new FramedStream(stream).Write(new byte[300]);
        Assert.Equal(new byte[] { 0, 0, 1, 0x2C }, stream.ToArray()[..4]);
    }

    [Theory]
    [InlineData(1)]
    [InlineData(7)]
    [InlineData(4096)]
    public void Reads_back_consecutive_messages_whatever_the_read_chunking(int chunk)
    {
        int[] sizes = [0, 1, 5, 1000, 9000, 70_000, 3];
        var wire = new MemoryStream();
        var writer = new FramedStream(wire);
        foreach (int size in sizes)
        {
            writer.Write(Pattern(size));
        }

        var reader = new FramedStream(new ChunkedStream(wire.ToArray(), chunk));
        var destination = new byte[100_000];
        foreach (int size in sizes)
        {
            int length = reader.ReadMessage(destination);
            Assert.Equal(size, length);
            Assert.Equal(Pattern(size), destination[..length]);
        }
        Assert.Throws<EndOfStreamException>(() => reader.ReadHeader());
    }

    [Fact]
    public async Task Async_reads_match_blocking_reads()
    {
        var wire = new MemoryStream();
        var writer = new FramedStream(wire);
        await writer.WriteAsync(Pattern(12), TestContext.Current.CancellationToken);
        await writer.WriteAsync(Pattern(50_000), TestContext.Current.CancellationToken);

        var reader = new FramedStream(new ChunkedStream(wire.ToArray(), 1000));
        var destination = new byte[60_000];
        Assert.Equal(12, await reader.ReadMessageAsync(destination, TestContext.Current.CancellationToken));
        Assert.Equal(Pattern(12), destination[..12]);
        Assert.Equal(50_000, await reader.ReadMessageAsync(destination, TestContext.Current.CancellationToken));
        Assert.Equal(Pattern(50_000), destination[..50_000]);
    }

    [Fact]
    public void A_header_over_the_limit_is_refused_before_any_payload_is_read()
    {
        var wire = new MemoryStream();
        wire.Write([0x80, 0, 0, 0]); // 2 GiB announced, nothing behind it
        var reader = new FramedStream(new MemoryStream(wire.ToArray()), maxPayload: 1024);

        var e = Assert.Throws<FrameTooLargeException>(() => reader.ReadHeader());
        Assert.Equal(1024, e.Limit);
        Assert.Equal(int.MaxValue, e.Length); // 2^31 does not fit an int: reported as the largest int
    }

    [Fact]
    public void A_message_larger_than_the_destination_is_refused()
    {
        var wire = new MemoryStream();
        new FramedStream(wire).Write(new byte[100]);
        var reader = new FramedStream(new MemoryStream(wire.ToArray()));
        Assert.Throws<FrameTooLargeException>(() => reader.ReadMessage(new byte[99]));
    }

    [Fact]
    public void Writing_more_than_the_limit_is_refused()
    {
        var writer = new FramedStream(new MemoryStream(), maxPayload: 10);
        Assert.Throws<FrameTooLargeException>(() => writer.Write(new byte[11]));
    }

    [Fact]
    public void A_truncated_message_is_end_of_stream()
    {
        var wire = new MemoryStream();
        new FramedStream(wire).Write(new byte[100]);
        var reader = new FramedStream(new MemoryStream(wire.ToArray()[..50]));
        Assert.Throws<EndOfStreamException>(() => reader.ReadMessage(new byte[100]));
    }

    [Fact]
    public void Split_writes_put_the_same_bytes_on_the_wire_in_two_writes()
    {
        var single = new CountingStream();
        var split = new CountingStream();
        new FramedStream(single).Write(Pattern(10));
        new FramedStream(split, splitWrites: true).Write(Pattern(10));
        Assert.Equal(single.ToArray(), split.ToArray());
        Assert.Equal(1, single.Writes);
        Assert.Equal(2, split.Writes);
    }

    [Fact]
    public void A_large_payload_written_to_a_socket_is_gathered_behind_its_header_byte_for_byte()
    {
        using var pair = new SocketPair();
        var writer = new FramedStream(pair.Client.GetStream());
        var reader = new FramedStream(pair.Accepted.GetStream());
        // A gathered one between two copied ones, and one whose payload is a slice of a larger array.
        byte[] large = Pattern(FramedStream.GatherFrom + 123), small = Pattern(10), inner = Pattern(FramedStream.GatherFrom + 50);
        var slice = inner.AsMemory(20, FramedStream.GatherFrom + 10);
        writer.Write(small);
        writer.Write(large);
        writer.Write(slice);
        writer.Write(small);

        foreach (var expected in new[] { small, large, slice.ToArray(), small })
        {
            var buffer = new byte[expected.Length];
            Assert.Equal(expected.Length, reader.ReadMessage(buffer));
            Assert.Equal(expected, buffer);
        }
    }

    [Fact]
    public void A_gathered_payload_over_the_limit_is_refused_before_a_byte_is_sent()
    {
        using var pair = new SocketPair();
        var writer = new FramedStream(pair.Client.GetStream(), maxPayload: FramedStream.GatherFrom);
        Assert.Throws<FrameTooLargeException>(() => writer.Write(new byte[FramedStream.GatherFrom + 1]));
        writer.Write(Pattern(3));
        var buffer = new byte[3];
        Assert.Equal(3, new FramedStream(pair.Accepted.GetStream()).ReadMessage(buffer)); // the first bytes to arrive are the next message's
        Assert.Equal(Pattern(3), buffer);
    }

    /// <summary>Two ends of a loopback TCP connection: a stream over a real socket, as the socket transports' clients have.</summary>
    private sealed class SocketPair : IDisposable
    {
        public SocketPair()
        {
            using var listener = new System.Net.Sockets.TcpListener(System.Net.IPAddress.Loopback, 0);
            listener.Start();
            Client.Connect((System.Net.IPEndPoint)listener.LocalEndpoint);
            Accepted = listener.AcceptTcpClient();
        }

        public System.Net.Sockets.TcpClient Client { get; } = new();

        public System.Net.Sockets.TcpClient Accepted { get; }

        public void Dispose()
        {
            Client.Dispose();
            Accepted.Dispose();
        }
    }

    private static byte[] Pattern(int size) => Enumerable.Range(0, size).Select(i => (byte)(i * 7 + size)).ToArray();

    private sealed class CountingStream : MemoryStream
    {
        public int Writes { get; private set; }
        public override void Write(ReadOnlySpan<byte> buffer) => Write(buffer.ToArray(), 0, buffer.Length);
        public override void Write(byte[] buffer, int offset, int count) { Writes++; base.Write(buffer, offset, count); }
    }
}
