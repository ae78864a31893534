using System.Diagnostics;
using System.Globalization;
using System.Text.Json;
using IpcBench.Kit.Processes;

namespace IpcBench.Conformance;

/// <summary>
/// A nats-server of one test's own (Debian's, as ./test.sh installs it) on loopback ports of its own, with its
/// monitoring endpoint, so that a test may look at its subscriptions or stop it without touching the one other tests
/// use. Disposing it stops it.
/// </summary>
public sealed class ScratchNats : IAsyncDisposable
{
    private static readonly HttpClient Http = new() { Timeout = TimeSpan.FromSeconds(5) };

    private readonly Process _server;
    private readonly int _monitor;

    private ScratchNats(Process server, int port, int monitor)
    {
        _server = server;
        _monitor = monitor;
        Port = port;
    }

    public int Port { get; }

    /// <summary>The URL for IPCBENCH_NATS_URL, and the host and port of a nats address.</summary>
    public string Url => $"nats://127.0.0.1:{Port}";

    public static async Task<ScratchNats> StartAsync()
    {
        int port = LoopbackPort.Free(), monitor = LoopbackPort.Free();
        var info = new ProcessStartInfo("nats-server") { RedirectStandardOutput = true, RedirectStandardError = true };
        foreach (string arg in new[] { "-a", "127.0.0.1", "-p", Invariant(port), "-m", Invariant(monitor) })
        {
            info.ArgumentList.Add(arg);
        }
        var nats = new ScratchNats(Process.Start(info)!, port, monitor);
        _ = nats._server.StandardOutput.ReadToEndAsync();
        _ = nats._server.StandardError.ReadToEndAsync();
        var deadline = DateTime.UtcNow + TimeSpan.FromSeconds(20);
        while (true)
        {
            try
            {
                await nats.ConnectionCountAsync();
                return nats;
            }
            catch (HttpRequestException) when (DateTime.UtcNow < deadline && !nats._server.HasExited)
            {
                await Task.Delay(200);
            }
        }
    }

    /// <summary>The client connections it holds now (its /connz).</summary>
    public async Task<int> ConnectionCountAsync() => (await MonitorAsync("connz")).GetProperty("num_connections").GetInt32();

    /// <summary>The subjects its clients subscribe to now (its /subsz, less its own $SYS subjects).</summary>
    public async Task<IReadOnlyList<string>> SubjectsAsync() =>
        [.. (await MonitorAsync("subsz?subs=1")).GetProperty("subscriptions_list").EnumerateArray()
            .Select(s => s.GetProperty("subject").GetString()!).Where(s => !s.StartsWith("$SYS.", StringComparison.Ordinal))];

    /// <summary>Stops it as an operator would (SIGTERM: it closes every connection, then exits).</summary>
    public async Task StopAsync()
    {
        using (var kill = Process.Start("kill", ["-TERM", Invariant(_server.Id)]))
        {
            await kill.WaitForExitAsync();
        }
        Assert.True(_server.WaitForExit(TimeSpan.FromSeconds(20)), "nats-server did not stop on SIGTERM");
    }

    public async ValueTask DisposeAsync()
    {
        if (!_server.HasExited)
        {
            ProcessTree.Kill(_server);
            await _server.WaitForExitAsync();
        }
        _server.Dispose();
    }

    private async Task<JsonElement> MonitorAsync(string path)
    {
        using var document = JsonDocument.Parse(await Http.GetStringAsync($"http://127.0.0.1:{_monitor}/{path}"));
        return document.RootElement.Clone();
    }

    private static string Invariant(int n) => n.ToString(CultureInfo.InvariantCulture);
}
