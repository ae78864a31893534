using System.Buffers.Binary;
using System.Diagnostics;
using System.Text;
using IpcBench.Contract.Options;
using IpcBench.Harness;
using IpcBench.Transports;

namespace IpcBench.Conformance;

/// <summary>
/// redis and redis-uds against real redis-servers: the one ./test.sh starts (it must run here), and ones of the tests'
/// own, whose channels and keys they can see: a stopped or killed server, and a closed client, leave neither behind;
/// and a client that speaks RESP by hand, sharing no code with StackExchange.Redis, gets its echo and a malformed
/// request costs nobody else theirs.
/// </summary>
public class RedisTests
{
    [Theory]
    [InlineData("redis")]
    [InlineData("redis-uds")]
    public async Task Runs_where_the_tests_run(string transport)
    {
        // The broker ./test.sh starts: a loaded machine may take a while to answer, so a probe is retried for 10 s.
        Assert.Null(await ServerWait.UnsupportedReasonAsync(TransportRegistry.Get(transport), null, TimeSpan.FromSeconds(10), TestContext.Current.CancellationToken));
    }

    [Theory]
    [InlineData("redis", false)]
    [InlineData("redis", true)]
    [InlineData("redis-uds", false)]
    [InlineData("redis-uds", true)]
    public async Task A_server_and_its_client_leave_no_channel_and_no_key_behind(string transport, bool kill)
    {
        await using var redis = await ScratchRedis.StartAsync();
        var server = await TestServer.StartAsync(transport, address: Address(redis, transport));
        string channel = AddressQuery.Of(server.Process.Address)["channel"];
        await using (var client = await server.ConnectAsync())
        {
            Assert.Equal(3, await client.RequestAsync("abc"u8.ToArray(), new byte[3], TestContext.Current.CancellationToken));
            var channels = await redis.ChannelsAsync();
            Assert.Contains(channel, channels);
            Assert.Contains(channels, c => c.StartsWith($"{channel}.reply.", StringComparison.Ordinal));
        }

        if (kill)
        {
            Process.GetProcessById(server.Process.ProcessId).Kill(); // no chance to unsubscribe
        }
        await server.DisposeAsync();

        var deadline = DateTime.UtcNow + TimeSpan.FromSeconds(10);
        while ((await redis.ChannelsAsync()).Count > 0 && DateTime.UtcNow < deadline)
        {
            await Task.Delay(200, TestContext.Current.CancellationToken);
        }
        Assert.Empty(await redis.ChannelsAsync());
        Assert.Equal(0, await redis.KeyCountAsync());
    }

    [Fact]
    public async Task A_client_speaking_RESP_by_hand_gets_its_echo_after_malformed_requests_of_its_own()
    {
        await using var redis = await ScratchRedis.StartAsync();
        string channel = $"ipcbench:test:{Guid.NewGuid():N}";
        await using var server = await TestServer.StartAsync("redis", address: new Uri($"{redis.Url}/?channel={channel}"));

        string replyChannel = $"{channel}.reply.raw";
        await using var replies = await ScratchRedis.RespConnection.OpenAsync(redis.Port);
        await replies.SendAsync("SUBSCRIBE", replyChannel);
        Assert.Equal("subscribe", Encoding.ASCII.GetString((byte[])((object[])(await replies.ReadAsync())!)[0]!));

        // A request too short for its header; one that names the server's own channel for its reply (which would feed
        // the server its own replies); then a good one: one byte of reply-channel length, the channel, an 8-byte id,
        // the payload.
        Assert.Equal(1L, await redis.CommandAsync("PUBLISH", channel, new byte[] { 9 }));
        Assert.Equal(1L, await redis.CommandAsync("PUBLISH", channel, Request(channel, 41L, "loop")));
        Assert.Equal(1L, await redis.CommandAsync("PUBLISH", channel, Request(replyChannel, 42L, "hello")));

        var message = (object[])(await replies.ReadAsync())!;
        Assert.Equal("message", Encoding.ASCII.GetString((byte[])message[0]!));
        Assert.Equal(replyChannel, Encoding.ASCII.GetString((byte[])message[1]!));
        var body = (byte[])message[2]!;
        Assert.Equal(42L, BinaryPrimitives.ReadInt64LittleEndian(body));
        Assert.Equal("hello", Encoding.ASCII.GetString(body, 8, body.Length - 8));
    }

    private static byte[] Request(string replyChannel, long id, string payload)
    {
        byte[] name = Encoding.UTF8.GetBytes(replyChannel), body = new byte[8];
        BinaryPrimitives.WriteInt64LittleEndian(body, id);
        return [(byte)name.Length, .. name, .. body, .. Encoding.UTF8.GetBytes(payload)];
    }

    private static Uri Address(ScratchRedis redis, string transport) =>
        transport == "redis-uds" ? new Uri($"redis-uds://{redis.SocketPath}") : new Uri($"{redis.Url}/");
}
