using IpcBench.Core;
using IpcBench.Core.Measurement;

namespace IpcBench.Conformance;

/// <summary>What is particular to the shared-memory channel: a channel per client, and its capacity.</summary>
public class MmfTests
{
    [Fact]
    public async Task Each_client_gets_a_channel_of_its_own_made_as_they_come_and_removed_at_stop()
    {
        string channel;
        await using (var server = await TestServer.StartAsync("mmf"))
        {
            channel = server.Process.Address.AbsolutePath;
            Assert.False(File.Exists(channel + ".2"));
            var clients = new List<IConnection>();
            for (int c = 0; c < 3; c++)
            {
                clients.Add(await server.ConnectAsync());
            }
            Assert.True(File.Exists(channel + ".2"));
            await clients[1].DisposeAsync(); // its channel is free again, and the next client takes it
            clients[1] = await server.ConnectAsync();
            Assert.False(File.Exists(channel + ".4"));
            foreach (var client in clients)
            {
                Assert.True(await new Exchange(client, 10).SendAsync(false, default) >= 0);
                await client.DisposeAsync();
            }
        }
        Assert.False(Directory.Exists(Path.GetDirectoryName(channel)));
    }

    [Fact]
    public async Task A_message_over_the_capacity_is_refused_naming_the_option()
    {
        await using var server = await TestServer.StartAsync("mmf", "capacity=4096");
        await using var connection = await server.ConnectAsync();
        Assert.True(await new Exchange(connection, 4096).SendAsync(false, default) >= 0);

        var e = await Assert.ThrowsAsync<FrameTooLargeException>(async () => await connection.RequestAsync(new byte[4097], new byte[4097]));
        Assert.Contains("capacity=", e.Message);
        Assert.True(await new Exchange(connection, 100).SendAsync(false, default) >= 0);
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
