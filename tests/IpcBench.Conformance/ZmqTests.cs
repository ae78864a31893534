using System.Buffers.Binary;
using System.Net;
using System.Net.Sockets;
using System.Text;
using IpcBench.Transports;

namespace IpcBench.Conformance;

/// <summary>
/// Both ZeroMQ servers (NetMQ's and libzmq's) are plain ZeroMQ REP endpoints: a REQ client written from
/// the ZMTP 3.0 spec, sharing no code with either engine, gets its payload back.
/// </summary>
public class ZmqTests
{
    [Theory]
    [InlineData("zmq")]
    [InlineData("zmq-libzmq")]
    public async Task A_raw_zmtp_req_client_gets_its_payload_back(string transport)
    {
        if (TransportRegistry.Get(transport).UnsupportedReason is { } reason)
        {
            Assert.Fail($"{transport} must run where the tests run: {reason}");
        }
        await using var server = await TestServer.StartAsync(transport);
        using var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        await socket.ConnectAsync(new IPEndPoint(IPAddress.Loopback, server.Process.Address.Port), TestContext.Current.CancellationToken);
        using var stream = new NetworkStream(socket);
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(10));
        var ct = timeout.Token;

        // Greeting: signature, version 3.0, mechanism NULL, as-server 0, filler; 64 bytes each way.
        var greeting = new byte[64];
        greeting[0] = 0xFF;
        greeting[9] = 0x7F;
        greeting[10] = 3;
        Encoding.ASCII.GetBytes("NULL").CopyTo(greeting, 12);
        await stream.WriteAsync(greeting, ct);
        var peerGreeting = new byte[64];
        await stream.ReadExactlyAsync(peerGreeting, ct);
        Assert.Equal(0xFF, peerGreeting[0]);
        Assert.Equal(3, peerGreeting[10]);

        // READY command announcing a REQ socket; the server's READY comes back.
        byte[] ready = [0x04, 25, 5, .. "READY"u8, 11, .. "Socket-Type"u8, 0, 0, 0, 3, .. "REQ"u8];
        await stream.WriteAsync(ready, ct);
        var (flags, body) = await ReadFrameAsync(stream, ct);
        Assert.Equal(0x04, flags & 0x04);
        Assert.Contains("REP", Encoding.ASCII.GetString(body));

        // A request: the empty delimiter frame (MORE), then the payload frame.
        byte[] payload = [.. "hello, zeromq"u8];
        await stream.WriteAsync(new byte[] { 0x01, 0 }, ct);
        await stream.WriteAsync((byte[])[0x00, (byte)payload.Length, .. payload], ct);

        var (delimiterFlags, delimiter) = await ReadFrameAsync(stream, ct);
        Assert.Equal(0x01, delimiterFlags & 0x01);
        Assert.Empty(delimiter);
        var (_, reply) = await ReadFrameAsync(stream, ct);
        Assert.Equal(payload, reply);
    }

    private static async Task<(byte Flags, byte[] Body)> ReadFrameAsync(NetworkStream stream, CancellationToken ct)
    {
        var head = new byte[1];
        await stream.ReadExactlyAsync(head, ct);
        long size;
        if ((head[0] & 0x02) != 0)
        {
            var longSize = new byte[8];
            await stream.ReadExactlyAsync(longSize, ct);
            size = BinaryPrimitives.ReadInt64BigEndian(longSize);
        }
        else
        {
            var shortSize = new byte[1];
            await stream.ReadExactlyAsync(shortSize, ct);
            size = shortSize[0];
        }
        var body = new byte[size];
        await stream.ReadExactlyAsync(body, ct);
        return (head[0], body);
    }
}
