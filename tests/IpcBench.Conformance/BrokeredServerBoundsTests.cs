using System.Buffers.Binary;
using System.Text;
using IpcBench.Contract.Options;
using IpcBench.Harness.Hosting;
using IpcBench.Harness.Measurement;
using IpcBench.Kit.Processes;
using IpcBench.Transports;
using IpcBench.Transports.Nats;
using IpcBench.Transports.Redis;
using NATS.Client.Core;

namespace IpcBench.Conformance;

/// <summary>
/// What anyone who can publish to a brokered server's channel or subject can make it hold is bounded: the redis server
/// answers no request over the largest payload, and the nats server keeps at most <see cref="NatsResponder.MaxPending"/>
/// requests waiting, dropping the newest past that (and saying so) instead of the library's 16,384.
/// </summary>
public class BrokeredServerBoundsTests
{
    [Fact]
    public async Task A_redis_request_over_the_largest_payload_is_dropped_and_the_next_answered()
    {
        await using var redis = await ScratchRedis.StartAsync();
        string channel = $"ipcbench:test:{Guid.NewGuid():N}";
        var serve = new ServeRequest("redis") { Address = new Uri($"{redis.Url}/?channel={channel}") }.StartInfo();
        serve.Environment["IPCBENCH_REDIS_URL"] = redis.Url; // the one it checks it can reach
        await using var server = await ServerProcess.StartAsync(serve, "the redis server", ct: TestContext.Current.CancellationToken);
        string replyChannel = $"{channel}.reply.raw";
        await using var replies = await ScratchRedis.RespConnection.OpenAsync(redis.Port);
        await replies.SendAsync("SUBSCRIBE", replyChannel);
        await replies.ReadAsync();

        Assert.Equal(1L, await redis.CommandAsync("PUBLISH", channel, Request(replyChannel, 41L, new byte[RedisTransport.MaxPayload + 1])));
        Assert.Equal(1L, await redis.CommandAsync("PUBLISH", channel, Request(replyChannel, 42L, "hello"u8.ToArray())));

        var body = (byte[])((object[])(await replies.ReadAsync())!)[2]!;
        Assert.Equal(42L, BinaryPrimitives.ReadInt64LittleEndian(body)); // not 41: the oversized one got no reply
        // The server said so on stderr before it answered 42, but its stderr reaches this process on a pipe of its own.
        Assert.Contains("over the largest payload", await ErrorsOnceTheySayAsync(server, "over the largest payload"));
    }

    [Fact]
    public async Task A_nats_server_flooded_past_its_bound_drops_the_newest_says_so_and_answers_again()
    {
        await using var nats = await ScratchNats.StartAsync();
        string subject = $"ipcbench.test.{Guid.NewGuid():N}";
        var serve = new ServeRequest("nats") { Address = new Uri($"{nats.Url}/?subject={subject}") }.StartInfo();
        serve.Environment["IPCBENCH_NATS_URL"] = nats.Url; // the one it checks it can reach
        serve.Environment[ServerStats.TestDelayVariable] = "2000"; // 2 ms a reply: a flood of 5,000 waits 10 s to be answered
        await using var server = await ServerProcess.StartAsync(serve, "the nats server", ct: TestContext.Current.CancellationToken);
        await using var flood = new NatsConnection(NatsOpts.Default with { Url = nats.Url });

        const int Requests = 5_000; // above the bound, below the library's own 16,384
        for (int i = 0; i < Requests; i++)
        {
            await flood.PublishAsync(subject, new byte[] { 1 }, replyTo: $"_INBOX.flood.{i}", cancellationToken: TestContext.Current.CancellationToken);
        }
        await flood.PingAsync(TestContext.Current.CancellationToken);

        Assert.Contains($"dropped a request: {NatsResponder.MaxPending} are waiting already", await ErrorsOnceTheySayAsync(server, "dropped a request"));
        await using var client = await TransportRegistry.Get("nats").ConnectAsync(AddressQuery.With(server.Address, "timeout", "30s"), TestContext.Current.CancellationToken);
        Assert.Equal(3, await client.RequestAsync("abc"u8.ToArray(), new byte[3], TestContext.Current.CancellationToken));
    }

    /// <summary>The server's recent stderr once it holds <paramref name="text"/>, or after 20 s as it is then.</summary>
    private static async Task<string> ErrorsOnceTheySayAsync(ServerProcess server, string text)
    {
        var deadline = DateTime.UtcNow.AddSeconds(20);
        while (!server.RecentErrors.Contains(text, StringComparison.Ordinal) && DateTime.UtcNow < deadline)
        {
            await Task.Delay(50, TestContext.Current.CancellationToken);
        }
        return server.RecentErrors;
    }

    private static byte[] Request(string replyChannel, long id, byte[] payload)
    {
        byte[] name = Encoding.UTF8.GetBytes(replyChannel), header = new byte[8];
        BinaryPrimitives.WriteInt64LittleEndian(header, id);
        return [(byte)name.Length, .. name, .. header, .. payload];
    }
}
