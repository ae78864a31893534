using System.Runtime.InteropServices;
using IpcBench.Core;
using IpcBench.Core.Hosting;
using IpcBench.Core.Measurement;

namespace IpcBench.Cli.Commands;

/// <summary><c>ipcbench serve</c>: an echo server that says <c>READY &lt;uri&gt;</c> once clients can connect.</summary>
internal static class ServeCommand
{
    public const string Help = """
        Usage: ipcbench serve --transport NAME [--address URI] [--io sync|async] [--wait spin|hybrid|block]
                              [--cpu N] [--parent-pid PID]

        Serves echo requests until SIGTERM or SIGINT, or until its parent process dies.
        Prints exactly one line on stdout, READY <uri>, once it accepts connections;
        diagnostics go to stderr.

          --transport NAME   transport to serve (see 'ipcbench list')
          --address URI      address to bind (default: the transport's, e.g. tcp://127.0.0.1:0,
                             a free port; uds:///tmp/ipcbench-*/s.sock, a fresh private directory)
          --io sync|async    socket and pipe transports: blocking session threads (default) or
                             async sessions on the thread pool
          --wait MODE        mmf only: spin, hybrid (default) or block
          --cpu N            pin the server process to CPU N
          --parent-pid PID   stop when process PID exits or stdin closes (set by 'ipcbench ping')
        """;

    public static async Task<int> RunAsync(IReadOnlyList<string> args)
    {
        var a = Arguments.Parse(args, ["transport", "address", "io", "wait", "cpu", "parent-pid"], []);
        var transport = TransportRegistry.Get(a.Require("transport"));
        if (transport.UnsupportedReason is { } reason)
        {
            throw new UnsupportedException($"{transport.Name} does not run here: {reason}");
        }
        var address = a.GetUri("address") ?? transport.DefaultAddress();
        foreach (string key in new[] { "io", "wait" }.Where(a.Has))
        {
            address = EndpointOptions.With(address, key, a.Get(key)!);
        }
        AddressChecks.Validate(transport, address);
        if (a.Has("cpu"))
        {
            CpuAffinity.PinCurrentProcess(a.GetInt("cpu", 0, 0));
        }
        int? parentPid = a.Has("parent-pid") ? a.GetInt("parent-pid", 0, 1) : null;

        using var stop = new CancellationTokenSource();
        using var sigterm = PosixSignalRegistration.Create(PosixSignal.SIGTERM, Stop);
        using var sigint = PosixSignalRegistration.Create(PosixSignal.SIGINT, Stop);
        void Stop(PosixSignalContext context)
        {
            context.Cancel = true; // shut down cleanly: the server removes its files
            stop.Cancel();
        }

        await using var server = await transport.StartServerAsync(address, ServerStats.Echo(), stop.Token);
        Console.Out.WriteLine($"READY {server.Address}");
        Console.Out.Flush();

        // Without --parent-pid, still stop if whoever started us goes away (unless that is init).
        int watched = parentPid ?? ParentWatch.CurrentParentPid() ?? 0;
        var parentGone = ParentWatch.WhenGoneAsync(watched, watchStdin: parentPid is not null, stop.Token);
        await Task.WhenAny(parentGone, Task.Delay(Timeout.Infinite, stop.Token));
        await stop.CancelAsync();
        return 0;
    }
}
