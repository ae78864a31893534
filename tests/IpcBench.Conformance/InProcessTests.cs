using IpcBench.Core.Contract;
using IpcBench.Core.Harness.Hosting;
using IpcBench.Core.Harness.Measurement;
using IpcBench.Transports;

namespace IpcBench.Conformance;

/// <summary>
/// The baselines, inproc and inproc-copy: their server is the handler in the client's process, started by the same
/// LocalServer every case uses; they keep the contract the transports keep, and nothing outside the process reaches them.
/// </summary>
public class InProcessTests
{
    public static TheoryData<string> Baselines =>
        [.. TransportRegistry.All.Where(t => t.Capabilities.Has(TransportFeatures.InProcess)).Select(t => t.Name)];

    [Theory]
    [MemberData(nameof(Baselines))]
    public async Task Echoes_every_size_and_answers_with_a_reply_size_of_its_own(string name)
    {
        var transport = TransportRegistry.Get(name);
        await using (var echo = await LocalServer.StartAsync(transport, Isolation.None, [], null, null))
        {
            Assert.Null(echo.Process); // no process was started
            await using var connection = await transport.ConnectAsync(echo.Address);
            foreach (int size in new[] { 0, 1, 1024, 100 * 1024 })
            {
                var exchange = new Exchange(connection, size); // checks every byte of every reply
                Assert.True(await exchange.SendAsync(false, default) >= 0);
            }
            Assert.Null(await ServerStats.QueryAsync(connection, lossTolerated: false)); // its CPU is the client's: no server's stats to give
        }
        await using var fixedReply = await LocalServer.StartAsync(transport, Isolation.None, [], null, null, replySize: 4096);
        await using var client = await transport.ConnectAsync(fixedReply.Address);
        Assert.True(await new Exchange(client, 16, replySize: 4096).SendAsync(false, default) >= 0);
    }

    [Theory]
    [MemberData(nameof(Baselines))]
    public async Task Refuses_what_does_not_fit_and_goes_on(string name)
    {
        var transport = TransportRegistry.Get(name);
        await using var server = await LocalServer.StartAsync(transport, Isolation.None, [], null, null);
        await using var connection = await transport.ConnectAsync(server.Address);
        int max = transport.Capabilities.MaxMessageSize;
        var tooLarge = await Assert.ThrowsAsync<FrameTooLargeException>(async () => await connection.RequestAsync(new byte[max + 1], new byte[max + 1]));
        Assert.Equal(max, tooLarge.Limit);
        var noRoom = await Assert.ThrowsAsync<FrameTooLargeException>(async () => await connection.RequestAsync(new byte[100], new byte[10]));
        Assert.Equal(10, noRoom.Limit);
        Assert.True(await new Exchange(connection, 100).SendAsync(false, default) >= 0);
    }

    [Theory]
    [MemberData(nameof(Baselines))]
    public async Task Nothing_reaches_a_server_that_has_stopped_or_another_process(string name)
    {
        var transport = TransportRegistry.Get(name);
        var server = await LocalServer.StartAsync(transport, Isolation.None, [], null, null);
        var address = server.Address;
        await server.DisposeAsync();
        var e = await Assert.ThrowsAsync<TransportException>(async () => await transport.ConnectAsync(address));
        Assert.Contains("not IPC", e.Message);

        // 'ipcbench serve' refuses one: it would serve no one.
        var refused = await Assert.ThrowsAsync<TransportException>(async () => await new ServeRequest(name).StartAsync());
        Assert.Contains("no server process", refused.Message);
    }
}
