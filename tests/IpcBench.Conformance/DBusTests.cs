using System.Diagnostics;
using IpcBench.Contract;
using IpcBench.Kit.Files;
using IpcBench.Kit.Processes;
using IpcBench.Transports;

namespace IpcBench.Conformance;

/// <summary>
/// dbus and its private bus: it must run here; its bus goes with its server, however the server ends; a D-Bus client
/// of libdbus's own (dbus-send) gets its echo and a D-Bus error for a call of the wrong signature, and the server
/// serves on; a bus killed under a client fails that client's next request at once.
/// </summary>
public class DBusTests
{
    [Fact]
    public void Runs_where_the_tests_run()
    {
        Assert.Null(TransportRegistry.Get("dbus").UnsupportedReason);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task The_private_bus_goes_with_its_server(bool kill)
    {
        var server = await TestServer.StartAsync("dbus");
        int bus = Assert.Single(BusDaemons(server.Process.ProcessId));

        if (kill)
        {
            Process.GetProcessById(server.Process.ProcessId).Kill(); // no chance to stop the bus itself
        }
        await server.DisposeAsync();

        var deadline = DateTime.UtcNow + TimeSpan.FromSeconds(10);
        while (ProcessLiveness.IsAlive(bus) && DateTime.UtcNow < deadline)
        {
            await Task.Delay(100, TestContext.Current.CancellationToken);
        }
        Assert.False(ProcessLiveness.IsAlive(bus), $"the bus (pid {bus}) outlived its server");
        Assert.False(Directory.Exists(Path.GetDirectoryName(PathAddress.ToPath(server.Process.Address))));
    }

    [Theory]
    [InlineData("KILL")] // no trap runs: the kernel's parent-death signal stops the daemon
    [InlineData("TERM")]
    public async Task The_private_bus_goes_with_its_supervisor(string signal)
    {
        await using var server = await TestServer.StartAsync("dbus");
        int bus = Assert.Single(BusDaemons(server.Process.ProcessId));
        int supervisor = Assert.Single(Named(server.Process.ProcessId, "sh"));

        var (exit, _, error) = await RunAsync("kill", [$"-{signal}", supervisor.ToString(System.Globalization.CultureInfo.InvariantCulture)]);
        Assert.True(exit == 0, error);

        var deadline = DateTime.UtcNow + TimeSpan.FromSeconds(5);
        while (ProcessLiveness.IsAlive(bus) && DateTime.UtcNow < deadline)
        {
            await Task.Delay(50, TestContext.Current.CancellationToken);
        }
        Assert.False(ProcessLiveness.IsAlive(bus), $"the bus (pid {bus}) outlived its supervisor's SIG{signal}");
    }

    [Fact]
    public void A_socket_path_is_written_as_a_dbus_address_escapes_it_and_a_non_ascii_one_is_refused()
    {
        var transport = TransportRegistry.Get("dbus");
        var e = Assert.ThrowsAny<Exception>(() => transport.ConnectAsync(new Uri("dbus:///tmp/bus-\u00e9"), TestContext.Current.CancellationToken).AsTask().GetAwaiter().GetResult());
        Assert.Contains("ASCII only", e.Message);
    }

    [Fact]
    public async Task A_bus_in_a_folder_whose_name_needs_escaping_serves()
    {
        // "%41": a '%' before an escape's digits, which serve's --address once read as 'A' when a temporary folder's
        // random suffix began with such digits (Uri.ToString() unescapes; AddressTextTests).
        string folder = Directory.CreateTempSubdirectory("ipcbench-test-dbus ,;=%41").FullName;
        try
        {
            await using var server = await TestServer.StartAsync("dbus", address: PathAddress.ToUri("dbus", Path.Combine(folder, "bus")));
            await using var client = await server.ConnectAsync();
            Assert.Equal(3, await client.RequestAsync("abc"u8.ToArray(), new byte[3], TestContext.Current.CancellationToken));
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    [Fact]
    public async Task A_call_from_dbus_send_gets_its_echo_and_a_call_of_the_wrong_signature_an_error()
    {
        await using var server = await TestServer.StartAsync("dbus");
        string bus = $"--bus=unix:path={PathAddress.ToPath(server.Process.Address)}";
        string[] call = ["--print-reply", "--reply-timeout=5000", "--dest=org.ipcbench.Echo", "/org/ipcbench/Echo", "org.ipcbench.Echo.Call"];

        var (wrongExit, _, wrongError) = await RunAsync("dbus-send", [bus, .. call, "string:hello"]);
        var (exit, output, error) = await RunAsync("dbus-send", [bus, .. call, "array:byte:104,105"]);

        Assert.NotEqual(0, wrongExit);
        Assert.Contains("org.freedesktop.DBus.Error.InvalidArgs", wrongError);
        Assert.True(exit == 0, error);
        Assert.Contains("array of bytes \"hi\"", output);
    }

    [Fact]
    public async Task A_bus_killed_under_a_client_fails_its_next_request_at_once()
    {
        await using var server = await TestServer.StartAsync("dbus");
        await using var client = await server.ConnectAsync(timeout: "30s");
        Assert.Equal(1, await client.RequestAsync(new byte[1], new byte[1], TestContext.Current.CancellationToken));

        Process.GetProcessById(Assert.Single(BusDaemons(server.Process.ProcessId))).Kill();
        await Task.Delay(200, TestContext.Current.CancellationToken); // the connection's end reaches the client
        var failed = Stopwatch.StartNew();
        await Assert.ThrowsAnyAsync<TransportException>(async () => await client.RequestAsync(new byte[1], new byte[1], TestContext.Current.CancellationToken));
        Assert.True(failed.Elapsed < TimeSpan.FromSeconds(1), $"took {failed.Elapsed}");
    }

    /// <summary>The dbus-daemons under a server process.</summary>
    private static IEnumerable<int> BusDaemons(int server) => Named(server, "dbus-daemon");

    /// <summary>The processes under <paramref name="root"/> of that command name (one that ends meanwhile is passed over).</summary>
    private static List<int> Named(int root, string command) =>
        [.. ProcessTree.Descendants(root).Where(pid =>
        {
            try
            {
                return File.ReadAllText($"/proc/{pid}/comm").Trim() == command;
            }
            catch (IOException)
            {
                return false;
            }
        })];

    private static async Task<(int Exit, string Output, string Error)> RunAsync(string program, string[] args)
    {
        var info = new ProcessStartInfo(program) { RedirectStandardOutput = true, RedirectStandardError = true };
        foreach (string arg in args)
        {
            info.ArgumentList.Add(arg);
        }
        using var process = Process.Start(info)!;
        var output = process.StandardOutput.ReadToEndAsync();
        var error = process.StandardError.ReadToEndAsync();
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(20));
        try
        {
            await process.WaitForExitAsync(timeout.Token);
        }
        finally
        {
            if (!process.HasExited)
            {
                process.Kill();
            }
        }
        return (process.ExitCode, await output, await error);
    }
}
