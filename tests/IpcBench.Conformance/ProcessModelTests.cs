using System.Diagnostics;
using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Harness.Hosting;
using IpcBench.Kit.Files;
using IpcBench.Transports;

namespace IpcBench.Conformance;

/// <summary>The server process's life: READY, clean stop, and no orphan when its parent dies.</summary>
public class ProcessModelTests
{
    [Fact]
    public async Task A_server_stops_cleanly_when_its_client_closes_stdin()
    {
        var server = await new ServeRequest("uds").StartAsync(ct: TestContext.Current.CancellationToken);
        string socketFile = Uri.UnescapeDataString(server.Address.AbsolutePath);
        Assert.True(File.Exists(socketFile));
        var watch = Stopwatch.StartNew();

        await server.DisposeAsync();

        Assert.True(watch.Elapsed < TimeSpan.FromSeconds(4), $"stop took {watch.Elapsed}: it was killed, not stopped");
        Assert.False(File.Exists(socketFile));
        Assert.DoesNotContain("killing", server.RecentErrors);
    }

    [Fact]
    public async Task A_server_exits_by_itself_when_its_parent_dies()
    {
        using var parent = Process.Start(new ProcessStartInfo("sleep", "60") { UseShellExecute = false })!;
        var info = ServerCommand.Resolve().StartInfo();
        foreach (string arg in new[] { "serve", "--transport", "tcp", "--parent-pid", parent.Id.ToString() })
        {
            info.ArgumentList.Add(arg);
        }
        info.RedirectStandardInput = true; // kept open: only the parent's death may stop it
        info.RedirectStandardOutput = true;
        using var server = Process.Start(info)!;
        try
        {
            string? ready = await server.StandardOutput.ReadLineAsync(TestContext.Current.CancellationToken).AsTask().WaitAsync(TimeSpan.FromSeconds(30), TestContext.Current.CancellationToken);
            Assert.StartsWith("READY tcp://127.0.0.1:", ready);

            parent.Kill();
            using var cts = new CancellationTokenSource(TimeSpan.FromSeconds(5));
            await server.WaitForExitAsync(cts.Token);
            Assert.Equal(0, server.ExitCode);
        }
        finally
        {
            if (!server.HasExited) server.Kill();
            if (!parent.HasExited) parent.Kill();
        }
    }

    [Fact]
    public async Task A_server_that_cannot_start_says_why()
    {
        await using var first = await new ServeRequest("tcp").StartAsync(ct: TestContext.Current.CancellationToken);
        var e = await Assert.ThrowsAsync<TransportException>(() => new ServeRequest("tcp") { Address = first.Address }.StartAsync(ct: TestContext.Current.CancellationToken));
        Assert.Contains("cannot listen", e.Message);
    }

    [Theory]
    [InlineData("uds", "s.sock")]
    [InlineData("mmf", "channel")]
    public async Task A_file_left_by_a_killed_server_is_replaced_and_a_live_one_refused(string transport, string file)
    {
        string dir = Directory.CreateTempSubdirectory("ipcbench-test-").FullName;
        try
        {
            var address = PathAddress.ToUri(transport, Path.Combine(dir, file));
            var killed = await new ServeRequest(transport) { Address = address }.StartAsync(ct: TestContext.Current.CancellationToken);
            Process.GetProcessById(killed.ProcessId).Kill(); // SIGKILL: no chance to remove its file
            await killed.DisposeAsync();
            Assert.True(File.Exists(Path.Combine(dir, file)), "a killed server's file should be left for this test");

            await using var replacement = await new ServeRequest(transport) { Address = address }.StartAsync(ct: TestContext.Current.CancellationToken);
            Assert.Equal(address.AbsolutePath, replacement.Address.AbsolutePath);

            var e = await Assert.ThrowsAsync<TransportException>(() => new ServeRequest(transport) { Address = address }.StartAsync(ct: TestContext.Current.CancellationToken));
            Assert.Contains("already", e.Message);
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }

    [Theory]
    [InlineData("io=sync")]
    [InlineData("io=async")]
    public async Task Connecting_to_a_killed_pipe_servers_left_socket_file_fails_within_the_connect_timeout(string io)
    {
        var killed = await new ServeRequest("pipe").StartAsync(ct: TestContext.Current.CancellationToken);
        var address = killed.Address;
        Process.GetProcessById(killed.ProcessId).Kill(); // SIGKILL: its socket file stays, and a connect to it is refused
        await killed.DisposeAsync();
        string? socketFile = OperatingSystem.IsWindows() ? null : Path.Combine(Path.GetTempPath(), $"CoreFxPipe_{address.Host}");
        try
        {
            var watch = Stopwatch.StartNew();
            var connect = TransportRegistry.Get("pipe").ConnectAsync(AddressQuery.With(address, AddressQuery.Parse($"{io}&connect_timeout=1s")), TestContext.Current.CancellationToken).AsTask();
            await Assert.ThrowsAnyAsync<TransportException>(() => connect.WaitAsync(TimeSpan.FromSeconds(10), TestContext.Current.CancellationToken));
            Assert.InRange(watch.Elapsed, TimeSpan.Zero, TimeSpan.FromSeconds(4));
        }
        finally
        {
            if (socketFile is not null)
            {
                File.Delete(socketFile);
            }
        }
    }
}
