using IpcBench.Core;
using IpcBench.Core.Measurement;

namespace IpcBench.Conformance;

/// <summary>What is particular to the shared-memory channel: one client at a time, and its capacity.</summary>
public class MmfTests
{
    [Fact]
    public async Task A_second_client_is_refused_while_the_first_holds_the_channel_and_welcome_after()
    {
        await using var server = await TestServer.StartAsync("mmf");
        await using (var first = await server.ConnectAsync())
        {
            var e = await Assert.ThrowsAsync<TransportException>(async () => await server.ConnectAsync());
            Assert.Contains("in use by process", e.Message);
            Assert.True(await new ClosedLoop.Exchange(first, 10).SendAsync(false, default) >= 0);
        }
        await using var second = await server.ConnectAsync();
        Assert.True(await new ClosedLoop.Exchange(second, 10).SendAsync(false, default) >= 0);
    }

    [Fact]
    public async Task A_message_over_the_capacity_is_refused_naming_the_option()
    {
        await using var server = await TestServer.StartAsync("mmf", "capacity=4096");
        await using var connection = await server.ConnectAsync();
        Assert.True(await new ClosedLoop.Exchange(connection, 4096).SendAsync(false, default) >= 0);

        var e = await Assert.ThrowsAsync<FrameTooLargeException>(async () => await connection.RequestAsync(new byte[4097], new byte[4097]));
        Assert.Contains("capacity=", e.Message);
        Assert.True(await new ClosedLoop.Exchange(connection, 100).SendAsync(false, default) >= 0);
    }

    [Fact]
    public async Task The_channel_file_is_private_to_its_user()
    {
        if (OperatingSystem.IsWindows())
        {
            return;
        }
        await using var server = await TestServer.StartAsync("mmf");
        string file = PathAddress.ToPath(server.Process.Address);
        Assert.Equal(UnixFileMode.UserRead | UnixFileMode.UserWrite, File.GetUnixFileMode(file));
        Assert.Equal(UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute, File.GetUnixFileMode(Path.GetDirectoryName(file)!));
    }
}
