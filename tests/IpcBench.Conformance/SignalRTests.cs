using System.Net.WebSockets;
using System.Text;

namespace IpcBench.Conformance;

/// <summary>
/// Interop with the SignalR hub: a bare WebSocket here, sharing no code with the SignalR client, does
/// the handshake and calls Echo in MessagePack and in JSON as the hub protocol spec (aspnetcore's
/// HubProtocol.md) writes them.
/// </summary>
public class SignalRTests
{
    private const byte RecordSeparator = 0x1e;
    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(10);

    [Fact]
    public async Task A_messagepack_call_built_from_the_spec_gets_its_payload_back()
    {
        await using var server = await TestServer.StartAsync("signalr");
        using var socket = await HandshakeAsync(server, "messagepack", 1);

        // [1, {}, "7", "Echo", [bin "abc"], []] behind its VarInt length.
        byte[] invocation = [0x96, 0x01, 0x80, 0xa1, (byte)'7', 0xa4, .. "Echo"u8, 0x91, 0xc4, 3, .. "abc"u8, 0x90];
        await SendAsync(socket, [(byte)invocation.Length, .. invocation], WebSocketMessageType.Binary);

        // [3, {}, "7", 3 (non-void result), bin "abc"]
        byte[] completion = [0x95, 0x03, 0x80, 0xa1, (byte)'7', 0x03, 0xc4, 3, .. "abc"u8];
        byte[] reply = await ReceiveSkippingPingsAsync(socket, [0x02, 0x91, 0x06]);
        Assert.Equal([(byte)completion.Length, .. completion], reply);
    }

    [Fact]
    public async Task A_messagepack_call_with_a_wrong_argument_fails_alone()
    {
        await using var server = await TestServer.StartAsync("signalr");
        using var socket = await HandshakeAsync(server, "messagepack", 1);

        // Echo wants bin; an integer argument (42) is a binding failure: an error completion for call "8".
        // (MessagePack-CSharp reads a str as bytes, so a string would be taken.)
        byte[] invocation = [0x96, 0x01, 0x80, 0xa1, (byte)'8', 0xa4, .. "Echo"u8, 0x91, 0x2a, 0x90];
        await SendAsync(socket, [(byte)invocation.Length, .. invocation], WebSocketMessageType.Binary);
        byte[] reply = await ReceiveSkippingPingsAsync(socket, [0x02, 0x91, 0x06]);
        Assert.Equal([0x95, 0x03, 0x80, 0xa1, (byte)'8', 0x01], reply[1..7]); // completion of "8", kind 1 (error)

        await using var connection = await server.ConnectAsync(); // the server is unharmed
        Assert.True(await new Harness.Measurement.Exchange(connection, 10).SendAsync(false, TestContext.Current.CancellationToken) >= 0);
    }

    [Fact]
    public async Task A_json_call_built_from_the_spec_gets_its_payload_back()
    {
        await using var server = await TestServer.StartAsync("signalr-json");
        using var socket = await HandshakeAsync(server, "json", 1);

        await SendAsync(socket, Record("""{"type":1,"invocationId":"7","target":"Echo","arguments":["YWJj"]}"""), WebSocketMessageType.Text);

        string reply = Encoding.UTF8.GetString(await ReceiveSkippingPingsAsync(socket, Record("""{"type":6}""")));
        Assert.Contains("\"type\":3", reply);
        Assert.Contains("\"invocationId\":\"7\"", reply);
        Assert.Contains("\"result\":\"YWJj\"", reply); // base64 of "abc"
    }

    /// <summary>Opens the WebSocket (no negotiate request) and completes the JSON handshake for <paramref name="protocol"/>.</summary>
    private static async Task<ClientWebSocket> HandshakeAsync(TestServer server, string protocol, int version)
    {
        var socket = new ClientWebSocket();
        using var timeout = new CancellationTokenSource(Timeout);
        await socket.ConnectAsync(new Uri($"ws://{server.Process.Address.Authority}/echo"), timeout.Token);
        await SendAsync(socket, Record($$"""{"protocol":"{{protocol}}","version":{{version}}}"""), WebSocketMessageType.Text);
        byte[] answer = await ReceiveAsync(socket);
        Assert.Equal(Record("{}"), answer);
        return socket;
    }

    private static byte[] Record(string json) => [.. Encoding.UTF8.GetBytes(json), RecordSeparator];

    private static async Task SendAsync(ClientWebSocket socket, byte[] message, WebSocketMessageType type)
    {
        using var timeout = new CancellationTokenSource(Timeout);
        await socket.SendAsync(message, type, endOfMessage: true, timeout.Token);
    }

    /// <summary>The next WebSocket message that is not a keep-alive ping (the server may send one at any time).</summary>
    private static async Task<byte[]> ReceiveSkippingPingsAsync(ClientWebSocket socket, byte[] ping)
    {
        while (true)
        {
            byte[] message = await ReceiveAsync(socket);
            if (!message.AsSpan().SequenceEqual(ping))
            {
                return message;
            }
        }
    }

    private static async Task<byte[]> ReceiveAsync(ClientWebSocket socket)
    {
        using var timeout = new CancellationTokenSource(Timeout);
        var message = new MemoryStream();
        byte[] buffer = new byte[4096];
        WebSocketReceiveResult result;
        do
        {
            result = await socket.ReceiveAsync(buffer, timeout.Token);
            Assert.NotEqual(WebSocketMessageType.Close, result.MessageType);
            message.Write(buffer, 0, result.Count);
        }
        while (!result.EndOfMessage);
        return message.ToArray();
    }
}
