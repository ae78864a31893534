using System.Net.Security;
using System.Net.Sockets;
using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Harness.Hosting;
using IpcBench.Harness.Measurement;
using IpcBench.Kit.Security;

namespace IpcBench.Conformance;

/// <summary>
/// The secure variants: a server names its certificate (pin=) in its address and a client trusts that certificate
/// only; a client without the pin, or with another, is refused clearly; bad input inside TLS is dropped as in the
/// clear; and the private key never reaches the disk.
/// </summary>
public class TlsTests
{
    [Theory]
    [MemberData(nameof(TransportCases.Secure), MemberType = typeof(TransportCases))]
    public async Task The_server_names_its_certificate_and_the_client_needs_that_name(string transport)
    {
        await using var server = await TestServer.StartAsync(transport);
        string pin = AddressQuery.Of(server.Process.Address)[Tls.Pin.Name];
        Assert.Matches("^[0-9a-f]{64}$", pin);

        var withoutPin = AddressQuery.With(AddressQuery.WithoutQuery(server.Process.Address), "timeout", "5s");
        var missing = await Assert.ThrowsAnyAsync<TransportException>(async () => await server.Transport.ConnectAsync(withoutPin, TestContext.Current.CancellationToken));
        Assert.Contains("has no pin=", missing.Message);

        var otherPin = AddressQuery.With(server.ClientAddress(), Tls.Pin.Name, new string('0', 64));
        await Assert.ThrowsAnyAsync<TransportException>(async () => await server.Transport.ConnectAsync(otherPin, TestContext.Current.CancellationToken));

        await using var connection = await server.ConnectAsync(); // the right pin still gets in
        Assert.True(await new Exchange(connection, 100).SendAsync(false, TestContext.Current.CancellationToken) >= 0);
    }

    [Fact]
    public async Task A_client_speaking_in_the_clear_is_dropped_and_no_other()
    {
        await using var server = await TestServer.StartAsync("tcp-tls");
        await using var good = await server.ConnectAsync();
        var exchange = new Exchange(good, 1000);

        using var raw = await RawClient.ConnectAsync(server.Process.Address);
        await raw.SendAsync(new byte[] { 0, 0, 0, 4, 1, 2, 3, 4 }, SocketFlags.None); // a frame, not a ClientHello
        await RawClient.ReadUntilClosedAsync(raw, TimeSpan.FromSeconds(5)); // a TLS alert at most, then the close
        await Eventually.ContainsAsync("TLS handshake with a client", () => server.Process.RecentErrors);

        Assert.True(await exchange.SendAsync(false, TestContext.Current.CancellationToken) >= 0);
    }

    [Fact]
    public async Task A_header_announcing_2_GB_inside_tls_drops_that_connection_and_no_other()
    {
        await using var server = await TestServer.StartAsync("tcp-tls");
        await using var good = await server.ConnectAsync();
        var exchange = new Exchange(good, 1000);

        using var raw = await RawClient.ConnectAsync(server.Process.Address);
        await using var tls = new SslStream(new NetworkStream(raw));
        await tls.AuthenticateAsClientAsync(Tls.ClientOptions(AddressQuery.Of(server.Process.Address)[Tls.Pin.Name]), TestContext.Current.CancellationToken);
        await tls.WriteAsync(new byte[] { 0x80, 0x00, 0x00, 0x00, 1, 2, 3 }, TestContext.Current.CancellationToken);
        await tls.FlushAsync(TestContext.Current.CancellationToken);
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(5));
        Assert.Equal(0, await tls.ReadAsync(new byte[16], timeout.Token)); // closed, nothing sent back
        await Eventually.ContainsAsync("exceeds the limit", () => server.Process.RecentErrors);

        Assert.True(await exchange.SendAsync(false, TestContext.Current.CancellationToken) >= 0);
    }

    /// <summary>
    /// The server runs with a home and a temp directory of its own; once it has served a client and stopped, both are
    /// empty: no key file, no certificate store. (The runtime's diagnostics sockets, which live in the temp directory
    /// while a process runs, are turned off so that an emptiness check can be exact.)
    /// </summary>
    [Theory]
    [MemberData(nameof(TransportCases.Secure), MemberType = typeof(TransportCases))]
    public async Task No_key_reaches_the_disk(string transport)
    {
        await RunsHere.RequireAsync(transport);
        string home = Directory.CreateTempSubdirectory("ipcbench-home-").FullName;
        string temp = Directory.CreateTempSubdirectory("ipcbench-tmp-").FullName;
        try
        {
            var server = await new ServeRequest(transport).StartAsync(launcher: info =>
            {
                info.Environment["HOME"] = home;
                info.Environment["TMPDIR"] = temp;
                info.Environment["DOTNET_EnableDiagnostics"] = "0";
                return info;
            }, ct: TestContext.Current.CancellationToken);
            await using (server)
            {
                var t = IpcBench.Transports.TransportRegistry.Get(transport);
                await using var connection = await t.ConnectAsync(AddressQuery.With(server.Address, "timeout", "5s"), TestContext.Current.CancellationToken);
                Assert.True(await new Exchange(connection, 100).SendAsync(false, TestContext.Current.CancellationToken) >= 0);
            }
            Assert.Empty(Directory.EnumerateFileSystemEntries(home, "*", SearchOption.AllDirectories));
            Assert.Empty(Directory.EnumerateFileSystemEntries(temp, "*", SearchOption.AllDirectories));
        }
        finally
        {
            Directory.Delete(home, recursive: true);
            Directory.Delete(temp, recursive: true);
        }
    }
}
