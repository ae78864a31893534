using System.Net;
using System.Runtime.Versioning;
using IpcBench.Contract;
using IpcBench.Harness.Measurement;
using IpcBench.Transports;

namespace IpcBench.Conformance;

/// <summary>
/// SECURITY.md's promises about exposure, per transport: a server started on its default address listens on loopback
/// only, and the socket and shared-memory files it offers are its owner's only. Read from /proc, so Linux only.
/// </summary>
[SupportedOSPlatform("linux")]
public class AccessTests
{
    [Theory]
    [MemberData(nameof(TransportCases.All), MemberType = typeof(TransportCases))]
    public async Task A_server_on_its_default_address_is_reachable_from_this_machine_and_this_user_only(string transport)
    {
        Assert.SkipUnless(OperatingSystem.IsLinux(), "reads the server's sockets and mapped files from /proc, which is Linux's");
        await using var server = await TestServer.StartAsync(transport);
        await using (var connection = await server.ConnectAsync())
        {
            // mmf makes a channel per client: let one exist before looking.
            Assert.True(await new Exchange(connection, 8).SendAsync(false, TestContext.Current.CancellationToken) >= 0);
            var exposure = ServerExposure.Of(server.Process.ProcessId);

            Assert.All(exposure.Internet, endpoint => Assert.True(ServerExposure.IsLoopback(endpoint.Address), $"{transport} listens on {endpoint}"));
            Assert.All(exposure.SocketFiles.Concat(exposure.MappedFiles),
                file => Assert.True(ServerExposure.OwnerOnly(file), $"{file} is open to others: {File.GetUnixFileMode(file)}"));
            if (!exposure.Internet.Any() && exposure.SocketFiles.Count + exposure.MappedFiles.Count == 0)
            {
                // Only a broker's client offers nothing itself; for any other server, /proc was misread.
                Assert.True(TransportRegistry.Get(transport).Capabilities.Has(TransportFeatures.Brokered), $"{transport} shows no endpoint in /proc");
            }
        }
    }

    [Fact]
    public async Task A_server_told_to_listen_on_every_interface_is_seen_doing_so()
    {
        Assert.SkipUnless(OperatingSystem.IsLinux(), "reads the server's sockets and mapped files from /proc, which is Linux's");
        await using var server = await TestServer.StartAsync("tcp", address: new Uri("tcp://0.0.0.0:0"));

        var listening = Assert.Single(ServerExposure.Of(server.Process.ProcessId).Listening);
        Assert.Equal(IPAddress.Any, listening.Address);
        Assert.False(ServerExposure.IsLoopback(listening.Address));
    }

    [Fact]
    public async Task A_pipe_servers_socket_file_is_the_owners_only()
    {
        Assert.SkipUnless(OperatingSystem.IsLinux(), "reads the server's sockets and mapped files from /proc, which is Linux's");
        await using var server = await TestServer.StartAsync("pipe");

        // The other socket file is the runtime's diagnostics port (dotnet-diagnostic-PID-...-socket, 0600).
        string file = Assert.Single(ServerExposure.Of(server.Process.ProcessId).SocketFiles, f => f.Contains("CoreFxPipe_"));
        Assert.Equal(Path.Combine(Path.GetTempPath(), "CoreFxPipe_" + server.Process.Address.Host), file);
        Assert.Equal(UnixFileMode.UserRead | UnixFileMode.UserWrite, File.GetUnixFileMode(file)); // the temp folder is everyone's
    }
}
