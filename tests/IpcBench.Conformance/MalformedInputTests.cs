using System.Net.Sockets;
using IpcBench.Harness.Measurement;

namespace IpcBench.Conformance;

/// <summary>Bad input loses nothing: a malformed frame costs the sender its connection, and no one else anything.</summary>
public class MalformedInputTests
{
    [Theory]
    [MemberData(nameof(TransportCases.Streams), MemberType = typeof(TransportCases))]
    public async Task A_header_announcing_2_GB_drops_that_connection_and_no_other(string transport)
    {
        await using var server = await TestServer.StartAsync(transport);
        await using var good = await server.ConnectAsync();
        var exchange = new Exchange(good, 1000);
        Assert.True(await exchange.SendAsync(false, TestContext.Current.CancellationToken) >= 0);

        using var raw = await RawClient.ConnectAsync(server.Process.Address);
        await raw.SendAsync(new byte[] { 0x80, 0x00, 0x00, 0x00, 1, 2, 3 }, SocketFlags.None); // 2^31 bytes announced

        // The server hangs up on the liar, with nothing sent back; had it tried to allocate 2 GB
        // for the frame, it would be out of memory or still waiting for the payload.
        Assert.Equal(0, await RawClient.ReadUntilClosedAsync(raw, TimeSpan.FromSeconds(5)));
        Assert.False(server.Process.HasExited);
        await Eventually.ContainsAsync("exceeds the limit", () => server.Process.RecentErrors); // its stderr says why

        for (int i = 0; i < 10; i++)
        {
            Assert.True(await exchange.SendAsync(false, TestContext.Current.CancellationToken) >= 0);
        }
        await using var fresh = await server.ConnectAsync();
        Assert.True(await new Exchange(fresh, 10).SendAsync(false, TestContext.Current.CancellationToken) >= 0);
    }

    [Theory]
    [MemberData(nameof(TransportCases.Streams), MemberType = typeof(TransportCases))]
    public async Task A_client_that_hangs_up_mid_frame_does_not_disturb_the_server(string transport)
    {
        await using var server = await TestServer.StartAsync(transport);
        using (var raw = await RawClient.ConnectAsync(server.Process.Address))
        {
            await raw.SendAsync(new byte[] { 0, 0, 0x10, 0, 1, 2 }, SocketFlags.None); // 4 KB announced, 2 B sent
        }
        await using var connection = await server.ConnectAsync();
        Assert.True(await new Exchange(connection, 4096).SendAsync(false, TestContext.Current.CancellationToken) >= 0);
    }

    [Fact]
    public async Task Udp_ignores_a_datagram_too_short_to_carry_a_sequence_number()
    {
        await using var server = await TestServer.StartAsync("udp");
        using var raw = await RawClient.ConnectAsync(server.Process.Address);
        await raw.SendAsync(new byte[] { 1, 2 }, SocketFlags.None);

        await using var connection = await server.ConnectAsync();
        Assert.True(await new Exchange(connection, 100).SendAsync(false, TestContext.Current.CancellationToken) >= 0);
        Assert.False(server.Process.HasExited);
    }
}
