using IpcBench.Contract;
using IpcBench.Harness.Hosting;
using IpcBench.Harness.Measurement;
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
        await using (var echo = await LocalServer.StartAsync(transport, Isolation.None, [], null, null, TestContext.Current.CancellationToken))
        {
            Assert.Null(echo.Process); // no process was started
            await using var connection = await transport.ConnectAsync(echo.Address, TestContext.Current.CancellationToken);
            foreach (int size in new[] { 0, 1, 1024, 100 * 1024 })
            {
                var exchange = new Exchange(connection, size); // checks every byte of every reply
                Assert.True(await exchange.SendAsync(false, TestContext.Current.CancellationToken) >= 0);
            }
            Assert.Null(await ServerStats.QueryAsync(connection, lossTolerated: false, TestContext.Current.CancellationToken)); // its CPU is the client's: no server's stats to give
        }
        await using var fixedReply = await LocalServer.StartAsync(transport, Isolation.None, [], null, null, replySize: 4096, ct: TestContext.Current.CancellationToken);
        await using var client = await transport.ConnectAsync(fixedReply.Address, TestContext.Current.CancellationToken);
        Assert.True(await new Exchange(client, 16, replySize: 4096).SendAsync(false, TestContext.Current.CancellationToken) >= 0);
    }

    [Theory]
    [MemberData(nameof(Baselines))]
    public async Task Refuses_what_does_not_fit_and_goes_on(string name)
    {
        var transport = TransportRegistry.Get(name);
        await using var server = await LocalServer.StartAsync(transport, Isolation.None, [], null, null, TestContext.Current.CancellationToken);
        await using var connection = await transport.ConnectAsync(server.Address, TestContext.Current.CancellationToken);
        int max = transport.Capabilities.MaxMessageSize;
        var tooLarge = await Assert.ThrowsAsync<FrameTooLargeException>(async () => await connection.RequestAsync(new byte[max + 1], new byte[max + 1], TestContext.Current.CancellationToken));
        Assert.Equal(max, tooLarge.Limit);
        var noRoom = await Assert.ThrowsAsync<FrameTooLargeException>(async () => await connection.RequestAsync(new byte[100], new byte[10], TestContext.Current.CancellationToken));
        Assert.Equal(10, noRoom.Limit);
        Assert.True(await new Exchange(connection, 100).SendAsync(false, TestContext.Current.CancellationToken) >= 0);
    }

    [Theory]
    [MemberData(nameof(Baselines))]
    public async Task Nothing_reaches_a_server_that_has_stopped_or_another_process(string name)
    {
        var transport = TransportRegistry.Get(name);
        var server = await LocalServer.StartAsync(transport, Isolation.None, [], null, null, TestContext.Current.CancellationToken);
        var address = server.Address;
        await server.DisposeAsync();
        var e = await Assert.ThrowsAsync<TransportException>(async () => await transport.ConnectAsync(address, TestContext.Current.CancellationToken));
        Assert.Contains("not IPC", e.Message);

        // 'ipcbench serve' refuses one: it would serve no one.
        var refused = await Assert.ThrowsAsync<TransportException>(async () => await new ServeRequest(name).StartAsync(ct: TestContext.Current.CancellationToken));
        Assert.Contains("no server process", refused.Message);
    }
}
