using IpcBench.Contract;
using IpcBench.Harness;
using IpcBench.Harness.Running;

namespace IpcBench.Benchmarks;

/// <summary>The server one benchmark case measures, made ready by the runner (<see cref="CaseRunner.PrepareAsync"/>).</summary>
public static class SuiteServer
{
    /// <summary>
    /// Pins this process as the suite's placement says, starts 'ipcbench serve' for <paramref name="entry"/> ("tcp",
    /// "mmf?wait=spin") in the suite's isolation, and returns the transport and the prepared case (its server and the
    /// address a client connects to).
    /// </summary>
    /// <param name="sizes">The case's request and reply sizes: the server answers with replies of the reply's size.</param>
    public static async Task<(ITransport Transport, PreparedCase Case)> StartAsync(string entry, MessageSizes sizes)
    {
        Secrets.RedactConsole(); // this is the benchmark child's first IpcBench code: what it prints reaches the run's log
        var transport = SuiteSettings.Resolve(entry);
        var spec = SuiteSettings.Spec(entry, sizes);
        return (transport, await CaseRunner.PrepareAsync(transport, spec, line => Console.Error.WriteLine($"[server] {line}"), CancellationToken.None));
    }
}
