using System.Net.Sockets;
using IpcBench.Harness.Hosting;
using IpcBench.Kit.Files;

namespace IpcBench.Tests;

/// <summary>
/// A server removes only what it can prove it made or is a stale socket or channel of its own kind: a file of anyone
/// else's at its address is refused (exit 2, one line) and left exactly as it was. As root that file could be any file.
/// </summary>
public sealed class ForeignFileTests : IDisposable
{
    private readonly string _dir = Directory.CreateTempSubdirectory("ipcbench-test-foreign-").FullName;

    public void Dispose() => Directory.Delete(_dir, recursive: true);

    [Theory]
    [InlineData("uds", "regular")]
    [InlineData("uds", "directory")]
    [InlineData("uds", "symlink")]
    [InlineData("grpc-uds", "regular")]
    [InlineData("mmf", "regular")]
    [InlineData("mmf", "directory")]
    [InlineData("mmf", "symlink")]
    public async Task A_server_refuses_a_path_that_holds_a_file_it_did_not_make_and_leaves_the_file_alone(string transport, string kind)
    {
        string path = Path.Combine(_dir, "target");
        string precious = Path.Combine(_dir, "precious");
        File.WriteAllText(precious, "keep me");
        switch (kind)
        {
            case "regular": File.WriteAllText(path, "keep me"); break;
            case "directory": Directory.CreateDirectory(path); break;
            case "symlink": File.CreateSymbolicLink(path, precious); break;
        }

        var (exit, stdout, stderr) = await CliTests.RunWithAsync(null, "serve", "--transport", transport, "--address", $"{transport}://{path}");

        Assert.Equal(2, exit);
        Assert.DoesNotContain("READY", stdout);
        Assert.Single(stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.Contains($"{path} is", stderr);
        Assert.Equal("keep me", File.ReadAllText(precious));
        switch (kind)
        {
            case "regular": Assert.Equal("keep me", File.ReadAllText(path)); break;
            case "directory": Assert.True(Directory.Exists(path)); break;
            case "symlink": Assert.Equal(precious, new FileInfo(path).LinkTarget); break;
        }
    }

    [Fact]
    public async Task A_pipe_server_refuses_a_regular_file_where_its_socket_file_goes()
    {
        string name = $"ipcbench-test-foreign-{Guid.NewGuid():N}";
        string path = Path.Combine(Path.GetTempPath(), "CoreFxPipe_" + name); // where .NET puts a pipe's socket on Unix
        File.WriteAllText(path, "keep me");
        try
        {
            var (exit, _, stderr) = await CliTests.RunWithAsync(null, "serve", "--transport", "pipe", "--address", $"pipe://{name}");

            Assert.True(exit == 2, stderr);
            Assert.Equal("keep me", File.ReadAllText(path));
        }
        finally
        {
            File.Delete(path);
        }
    }

    [Fact]
    public async Task An_mmf_server_leaves_a_file_named_like_its_scratch_file_alone()
    {
        string path = Path.Combine(_dir, "channel");
        File.WriteAllText(path + ".partial", "keep me"); // the name the channel's scratch copy once had
        await using (var server = await new ServeRequest("mmf") { Address = PathAddress.ToUri("mmf", path) }.StartAsync(ct: TestContext.Current.CancellationToken))
        {
            Assert.True(File.Exists(path));
        }
        Assert.Equal("keep me", File.ReadAllText(path + ".partial"));
        Assert.False(File.Exists(path));
    }

    [Fact]
    public void FileKinds_tells_a_socket_from_a_file_a_directory_a_link_and_nothing()
    {
        string socketPath = Path.Combine(_dir, "s.sock");
        using var socket = new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified);
        socket.Bind(new UnixDomainSocketEndPoint(socketPath));
        File.WriteAllText(Path.Combine(_dir, "file"), "");
        File.CreateSymbolicLink(Path.Combine(_dir, "link"), socketPath);

        Assert.Equal(FileKind.Socket, FileKinds.Of(socketPath));
        Assert.Equal(FileKind.Regular, FileKinds.Of(Path.Combine(_dir, "file")));
        Assert.Equal(FileKind.Other, FileKinds.Of(_dir));
        Assert.Equal(FileKind.Other, FileKinds.Of(Path.Combine(_dir, "link"))); // the link, not what it points to
        Assert.Equal(FileKind.Missing, FileKinds.Of(Path.Combine(_dir, "nothing")));
    }
}
