using System.Diagnostics;
using IpcBench.Conformance;
using IpcBench.Kit.Processes;

namespace IpcBench.Tests;

/// <summary>
/// A RabbitMQ node of one test's own (Debian's rabbitmq-server, as ./test.sh installs it), on loopback ports of its
/// own with its data in a private directory, so that a test may stop it without touching the broker other tests use.
/// Disposing stops it if it still runs and removes its directory.
/// </summary>
public sealed class ScratchBroker : IAsyncDisposable
{
    private static readonly TimeSpan StartTimeout = TimeSpan.FromSeconds(60);

    private readonly string _directory;
    private readonly Process _server;

    private ScratchBroker(string node, int port, string directory, Process server)
    {
        Node = node;
        Port = port;
        _directory = directory;
        _server = server;
    }

    public string Node { get; }
    public int Port { get; }

    /// <summary>The URI for IPCBENCH_RABBITMQ_URI: guest, which RabbitMQ accepts from loopback only.</summary>
    public string Uri => $"amqp://guest:guest@127.0.0.1:{Port}/";

    public static async Task<ScratchBroker> StartAsync()
    {
        string node = $"ipcbench-test-{Environment.ProcessId}-{Guid.NewGuid():N}"[..32] + "@localhost";
        int port = LoopbackPort.Free(), distributionPort = LoopbackPort.Free();
        // rabbitmq-server runs the node as the rabbitmq user, who must be able to write here.
        string directory = Directory.CreateTempSubdirectory("ipcbench-test-broker-").FullName;
        await RunAsync("chown", "rabbitmq:rabbitmq", directory);
        var info = new ProcessStartInfo("rabbitmq-server") { RedirectStandardOutput = true, RedirectStandardError = true, RedirectStandardInput = true };
        info.Environment["RABBITMQ_NODENAME"] = node;
        info.Environment["RABBITMQ_NODE_IP_ADDRESS"] = "127.0.0.1";
        info.Environment["RABBITMQ_NODE_PORT"] = port.ToString(System.Globalization.CultureInfo.InvariantCulture);
        info.Environment["RABBITMQ_DIST_PORT"] = distributionPort.ToString(System.Globalization.CultureInfo.InvariantCulture);
        info.Environment["RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS"] = "-kernel inet_dist_use_interface {127,0,0,1}";
        info.Environment["RABBITMQ_MNESIA_BASE"] = Path.Combine(directory, "mnesia");
        info.Environment["RABBITMQ_LOG_BASE"] = Path.Combine(directory, "log");
        info.Environment["RABBITMQ_PID_FILE"] = Path.Combine(directory, "pid");
        info.Environment["RABBITMQ_ENABLED_PLUGINS_FILE"] = Path.Combine(directory, "enabled_plugins");
        var broker = new ScratchBroker(node, port, directory, Process.Start(info)!);
        _ = broker._server.StandardOutput.ReadToEndAsync();
        _ = broker._server.StandardError.ReadToEndAsync();
        try
        {
            // The node registers with epmd a moment after it starts: ask until it answers.
            var deadline = DateTime.UtcNow + StartTimeout;
            while (await CtlAsync(node, "await_startup", "--timeout", "5") != 0)
            {
                Assert.False(broker._server.HasExited, $"rabbitmq-server for {node} exited with {(broker._server.HasExited ? broker._server.ExitCode : 0)}");
                Assert.True(DateTime.UtcNow < deadline, $"{node} did not start within {StartTimeout}");
                await Task.Delay(500);
            }
            return broker;
        }
        catch
        {
            await broker.DisposeAsync();
            throw;
        }
    }

    /// <summary>The queues the node holds now.</summary>
    public async Task<int> QueueCountAsync()
    {
        var (exit, output) = await CtlWithOutputAsync(Node, "-q", "list_queues", "name");
        Assert.Equal(0, exit);
        return output.Split('\n', StringSplitOptions.RemoveEmptyEntries).Count(line => line.Trim() != "name");
    }

    /// <summary>Stops the node as an operator would: it closes every connection, then exits.</summary>
    public async Task StopAsync()
    {
        Assert.Equal(0, await CtlAsync(Node, "stop"));
        using var exited = new CancellationTokenSource(StartTimeout);
        await _server.WaitForExitAsync(exited.Token);
    }

    public async ValueTask DisposeAsync()
    {
        if (!_server.HasExited)
        {
            await CtlAsync(Node, "stop");
            using var exited = new CancellationTokenSource(TimeSpan.FromSeconds(30));
            try
            {
                await _server.WaitForExitAsync(exited.Token);
            }
            catch (OperationCanceledException)
            {
                ProcessTree.Kill(_server);
            }
        }
        _server.Dispose();
        Directory.Delete(_directory, recursive: true);
    }

    private static async Task<int> CtlAsync(string node, params string[] args) => (await CtlWithOutputAsync(node, args)).Exit;

    private static Task<(int Exit, string Output)> CtlWithOutputAsync(string node, params string[] args) =>
        RunWithOutputAsync("rabbitmqctl", ["-n", node, .. args]);

    private static async Task RunAsync(string program, params string[] args) =>
        Assert.Equal(0, (await RunWithOutputAsync(program, args)).Exit);

    private static async Task<(int Exit, string Output)> RunWithOutputAsync(string program, string[] args)
    {
        var info = new ProcessStartInfo(program) { RedirectStandardOutput = true, RedirectStandardError = true };
        foreach (string arg in args)
        {
            info.ArgumentList.Add(arg);
        }
        using var process = Process.Start(info)!;
        var stdout = process.StandardOutput.ReadToEndAsync();
        _ = process.StandardError.ReadToEndAsync();
        using var done = new CancellationTokenSource(StartTimeout);
        await process.WaitForExitAsync(done.Token);
        return (process.ExitCode, await stdout);
    }
}
