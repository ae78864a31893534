using System.IO.MemoryMappedFiles;
using System.Runtime.Versioning;
using IpcBench.Contract;
using IpcBench.Harness.Measurement;
using IpcBench.Kit.Files;

namespace IpcBench.Conformance;

/// <summary>What is particular to the shared-memory channel: a channel per client, its capacity, and a client that lies in it.</summary>
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
                Assert.True(await new Exchange(client, 10).SendAsync(false, TestContext.Current.CancellationToken) >= 0);
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
        Assert.True(await new Exchange(connection, 4096).SendAsync(false, TestContext.Current.CancellationToken) >= 0);

        var e = await Assert.ThrowsAsync<FrameTooLargeException>(async () => await connection.RequestAsync(new byte[4097], new byte[4097], TestContext.Current.CancellationToken));
        Assert.Contains("capacity=", e.Message);
        Assert.True(await new Exchange(connection, 100).SendAsync(false, TestContext.Current.CancellationToken) >= 0);
    }

    [Theory]
    [InlineData(-1)]
    [InlineData(4097)]
    [InlineData(int.MaxValue)]
    public async Task A_client_announcing_a_length_over_the_capacity_loses_its_channel_and_no_one_else_anything(int length)
    {
        await using var server = await TestServer.StartAsync("mmf", "capacity=4096");
        await using var good = await server.ConnectAsync(); // takes the first channel; the server makes the next, FILE.1
        string next = PathAddress.ToPath(server.Process.Address) + ".1";
        for (int i = 0; i < 100 && !File.Exists(next); i++)
        {
            await Task.Delay(50, TestContext.Current.CancellationToken);
        }

        // A client writing the channel by hand, as LAYOUT.md lays it out: its pid at 128 claims it, the attach
        // sequence at 132 announces it, then a request of a length no area holds (264) and its sequence (256).
        using (var map = MemoryMappedFile.CreateFromFile(next, FileMode.Open, null, 0, MemoryMappedFileAccess.ReadWrite))
        using (var channel = map.CreateViewAccessor())
        {
            Assert.Equal(0, channel.ReadInt32(128));
            channel.Write(128, Environment.ProcessId);
            channel.Write(132, channel.ReadInt32(132) + 1);
            channel.Write(264, length);
            channel.Write(256, channel.ReadInt32(384) + 1);

            await Eventually.ContainsAsync($"request length {length} B exceeds the channel capacity of 4096 B", () => server.Process.RecentErrors);
            Assert.Equal(0, channel.ReadInt32(128)); // released: the channel is free for the next client
        }
        Assert.True(await new Exchange(good, 4096).SendAsync(false, TestContext.Current.CancellationToken) >= 0);
        await using var fresh = await server.ConnectAsync();
        Assert.True(await new Exchange(fresh, 100).SendAsync(false, TestContext.Current.CancellationToken) >= 0);
        Assert.False(server.Process.HasExited);
    }

    [Fact]
    [UnsupportedOSPlatform("windows")] // skipped there, below
    public async Task The_channel_file_is_private_to_its_user()
    {
        Assert.SkipWhen(OperatingSystem.IsWindows(), "checks Unix file modes; on Windows the channel is a named mapping with no file");
        await using var server = await TestServer.StartAsync("mmf");
        string file = PathAddress.ToPath(server.Process.Address);
        Assert.Equal(UnixFileMode.UserRead | UnixFileMode.UserWrite, File.GetUnixFileMode(file));
        Assert.Equal(UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute, File.GetUnixFileMode(Path.GetDirectoryName(file)!));
    }
}
