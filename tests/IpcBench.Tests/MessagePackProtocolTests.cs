using System.Buffers;
using IpcBench.Transports.SignalR;
using Microsoft.AspNetCore.SignalR;
using Microsoft.AspNetCore.SignalR.Protocol;

namespace IpcBench.Tests;

/// <summary>
/// IpcBench's MessagePack hub protocol against the examples of its specification (aspnetcore's
/// src/SignalR/docs/specs/HubProtocol.md): each spec example is written byte for byte and read back.
/// </summary>
public class MessagePackProtocolTests
{
    private readonly MessagePackProtocol _protocol = new();

    [Fact]
    public void Writes_the_specs_invocation_example()
    {
        byte[] spec = [0x96, 0x01, 0x80, 0xa3, .. "xyz"u8, 0xa6, .. "method"u8, 0x91, 0x2a, 0x90];
        Assert.Equal(Framed(spec), Write(new InvocationMessage("xyz", "method", [42], [])));
    }

    [Fact]
    public void Writes_the_specs_completion_and_ping_examples()
    {
        Assert.Equal(Framed([0x95, 0x03, 0x80, 0xa3, .. "xyz"u8, 0x01, 0xa5, .. "Error"u8]), Write(CompletionMessage.WithError("xyz", "Error")));
        Assert.Equal(Framed([0x94, 0x03, 0x80, 0xa3, .. "xyz"u8, 0x02]), Write(CompletionMessage.Empty("xyz")));
        Assert.Equal(Framed([0x95, 0x03, 0x80, 0xa3, .. "xyz"u8, 0x03, 0x2a]), Write(CompletionMessage.WithResult("xyz", 42)));
        Assert.Equal(Framed([0x91, 0x06]), Write(PingMessage.Instance));
    }

    [Fact]
    public void Reads_the_specs_invocation_with_headers()
    {
        byte[] spec = [0x96, 0x01, 0x82, 0xa1, (byte)'x', 0xa1, (byte)'y', 0xa1, (byte)'z', 0xa1, (byte)'z',
            0xa3, .. "xyz"u8, 0xa6, .. "method"u8, 0x91, 0x2a, 0x90];
        var message = Assert.IsType<InvocationMessage>(ReadOne(Framed(spec), new Binder(typeof(int))));
        Assert.Equal("xyz", message.InvocationId);
        Assert.Equal("method", message.Target);
        Assert.Equal(new object?[] { 42 }, message.Arguments);
        Assert.Equal(new Dictionary<string, string> { ["x"] = "y", ["z"] = "z" }, message.Headers);
    }

    [Fact]
    public void Reads_the_specs_close_examples()
    {
        var close = Assert.IsType<CloseMessage>(ReadOne(Framed([0x92, 0x07, 0xa3, .. "xyz"u8]), new Binder()));
        Assert.Equal(("xyz", false), (close.Error, close.AllowReconnect));
        var reconnect = Assert.IsType<CloseMessage>(ReadOne(Framed([0x93, 0x07, 0xa3, .. "xyz"u8, 0xc3]), new Binder()));
        Assert.True(reconnect.AllowReconnect);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(31)]
    [InlineData(255)]
    [InlineData(256)]
    [InlineData(65535)]
    [InlineData(65536)]
    [InlineData(102400)]
    public void A_payload_of_any_size_comes_back_whole_across_split_input(int size)
    {
        byte[] payload = Enumerable.Range(0, size).Select(i => (byte)(i * 7)).ToArray();
        byte[] wire = Write(new InvocationMessage("1", "Echo", [payload], []));
        var input = Split(wire, 1000);
        var binder = new Binder(typeof(byte[]));

        var partial = input.Slice(0, wire.Length - 1);
        Assert.False(_protocol.TryParseMessage(ref partial, binder, out _)); // not all there yet
        Assert.True(_protocol.TryParseMessage(ref input, binder, out var message));
        Assert.Equal(payload, (byte[])Assert.IsType<InvocationMessage>(message).Arguments[0]!);
        Assert.True(input.IsEmpty);
    }

    [Fact]
    public void Reads_messages_one_after_another_from_one_buffer()
    {
        byte[] wire = [.. Write(PingMessage.Instance), .. Write(CompletionMessage.WithResult("2", new byte[] { 1, 2 }))];
        var input = new ReadOnlySequence<byte>(wire);
        var binder = new Binder(typeof(byte[]));
        Assert.True(_protocol.TryParseMessage(ref input, binder, out var first));
        Assert.True(_protocol.TryParseMessage(ref input, binder, out var second));
        Assert.IsType<PingMessage>(first);
        Assert.Equal(new byte[] { 1, 2 }, Assert.IsType<CompletionMessage>(second).Result);
        Assert.True(input.IsEmpty);
    }

    [Fact]
    public void A_wrong_argument_type_is_a_binding_failure_of_that_call()
    {
        byte[] wire = Write(new InvocationMessage("3", "Echo", ["text"], []));
        var failure = Assert.IsType<InvocationBindingFailureMessage>(ReadOne(wire, new Binder(typeof(byte[]))));
        Assert.Equal("3", failure.InvocationId);
    }

    [Theory]
    [InlineData(new byte[] { 0xff, 0xff, 0xff, 0xff, 0x0f })] // a length over 2 GiB
    [InlineData(new byte[] { 0x02, 0x91, 0x63 })] // message type 99
    [InlineData(new byte[] { 0x03, 0x93, 0x03, 0x80 })] // a completion that ends early
    [InlineData(new byte[] { 0x02, 0x91, 0xc1 })] // 0xc1 is no MessagePack format
    public void Malformed_input_is_invalid_data(byte[] wire)
    {
        var input = new ReadOnlySequence<byte>(wire);
        Assert.Throws<InvalidDataException>(() => _protocol.TryParseMessage(ref input, new Binder(), out _));
    }

    [Fact]
    public void An_unsupported_value_type_is_refused_when_writing()
    {
        Assert.Throws<NotSupportedException>(() => Write(new InvocationMessage("4", "Echo", [1.5], [])));
    }

    private byte[] Write(HubMessage message)
    {
        var output = new ArrayBufferWriter<byte>();
        _protocol.WriteMessage(message, output);
        Assert.Equal(output.WrittenSpan.ToArray(), _protocol.GetMessageBytes(message).ToArray());
        return output.WrittenSpan.ToArray();
    }

    private HubMessage ReadOne(byte[] wire, IInvocationBinder binder)
    {
        var input = new ReadOnlySequence<byte>(wire);
        Assert.True(_protocol.TryParseMessage(ref input, binder, out var message));
        Assert.True(input.IsEmpty);
        return message;
    }

    /// <summary>The body behind its VarInt length (every example here is under 128 bytes).</summary>
    private static byte[] Framed(byte[] body) => [(byte)body.Length, .. body];

    private static ReadOnlySequence<byte> Split(byte[] data, int chunk)
    {
        var first = new Segment(data.AsMemory(0, Math.Min(chunk, data.Length)), 0);
        var last = first;
        for (int at = chunk; at < data.Length; at += chunk)
        {
            last = last.Append(data.AsMemory(at, Math.Min(chunk, data.Length - at)));
        }
        return new ReadOnlySequence<byte>(first, 0, last, last.Memory.Length);
    }

    private sealed class Segment : ReadOnlySequenceSegment<byte>
    {
        public Segment(ReadOnlyMemory<byte> memory, long runningIndex)
        {
            Memory = memory;
            RunningIndex = runningIndex;
        }

        public Segment Append(ReadOnlyMemory<byte> memory)
        {
            var next = new Segment(memory, RunningIndex + Memory.Length);
            Next = next;
            return next;
        }
    }

    /// <summary>Every method takes <paramref name="parameters"/>; every result is a byte array.</summary>
    private sealed class Binder(params Type[] parameters) : IInvocationBinder
    {
        public IReadOnlyList<Type> GetParameterTypes(string methodName) => parameters;
        public Type GetReturnType(string invocationId) => typeof(byte[]);
        public Type GetStreamItemType(string streamId) => throw new InvalidOperationException("no streams");
    }
}
