using System.Diagnostics;
using System.Globalization;
using IpcBench.Contract;
using IpcBench.Harness.Hosting;
using IpcBench.Harness.Measurement;
using IpcBench.Kit.Processes;

namespace IpcBench.Harness.Running;

/// <summary>
/// The start scenario: each measured request is a new client process, timed from just before it is started to the moment
/// it has its checked reply (<c>ipcbench first-reply</c>, handed the spec on stdin, reports that moment on the one clock
/// every process of the machine shares): loading the runtime and ipcbench, connecting, one request. Where a JIT, a
/// ReadyToRun and a NativeAOT build differ most. The client's CPU and allocations are each process's own, up to its reply.
/// </summary>
public static class StartScenario
{
    /// <summary>The hidden verb a start-scenario client runs; its spec is the first line on stdin.</summary>
    public const string Verb = "first-reply";

    /// <summary>The line a client prints: the Stopwatch timestamp of its reply, its CPU time in microseconds and its allocated bytes.</summary>
    public const string Replied = "REPLIED";

    private static readonly TimeSpan StartTimeout = TimeSpan.FromSeconds(60);

    /// <param name="spec">The case, its server set.</param>
    public static async Task<LoopResult> RunAsync(ServerCommand client, ITransport transport, CaseSpec spec, Action<double>? progress,
        CancellationToken ct)
    {
        string handed = spec.ToJson();
        // The executable and its libraries into the page cache, and this process's JIT done, as every loop warms up.
        await WarmUp.RunAsync(spec.Warmup, TimeSpan.Zero, async () => await StartOnceAsync(client, transport, handed, ct).ConfigureAwait(false))
            .ConfigureAwait(false);
        var recorder = new LatencyRecorder();
        long started = Stopwatch.GetTimestamp();
        double cpuUs = 0, allocated = 0;
        for (int i = 0; i < spec.Count; i++)
        {
            var (ticks, cpu, bytes) = await StartOnceAsync(client, transport, handed, ct).ConfigureAwait(false);
            recorder.Record(ticks);
            (cpuUs, allocated) = (cpuUs + cpu, allocated + bytes);
            progress?.Invoke((i + 1.0) / spec.Count);
        }
        var cost = new Cost(Stopwatch.GetElapsedTime(started), cpuUs / spec.Count, allocated / spec.Count);
        return recorder.Result(0, cost, null);
    }

    /// <summary>
    /// A start-scenario client's side: connect to the spec's server, one request with its reply checked, then the moment of
    /// that reply as <see cref="Report"/> spells it. Nothing else: no warm-up, no results.
    /// </summary>
    public static async Task<string> FirstReplyAsync(ITransport transport, CaseSpec spec, CancellationToken ct)
    {
        byte[] request = new byte[spec.Key.Size], reply = new byte[request.Length];
        Payload.Fill(request);
        long repliedAt;
        await using (var connection = await transport.ConnectAsync(spec.Server!, ct).ConfigureAwait(false))
        {
            int length = await connection.RequestAsync(request, reply, ct).ConfigureAwait(false);
            repliedAt = Stopwatch.GetTimestamp();
            if (Payload.CheckEcho(request, reply.AsSpan(0, length), content: true) is { } problem)
            {
                throw new ReplyMismatchException(problem);
            }
        }
        return Report(repliedAt);
    }

    /// <summary>One client process: its start-to-reply time in Stopwatch ticks, and its own CPU and allocations to then.</summary>
    private static async Task<(long Ticks, double CpuUs, double Allocated)> StartOnceAsync(ServerCommand client, ITransport transport, string spec,
        CancellationToken ct)
    {
        var info = client.StartInfo(Verb, "--transport", transport.Name);
        // A cold start is the runtime's defaults, not the call-counting delay of 10 ms that ipcbench's runtimeconfig.json gives
        // the processes it measures warm (src/Measured.props). The variable wins over that file, and is read as
        // hexadecimal: 64 is the runtime's 100 ms. One the user set stays.
        info.Environment.TryAdd("DOTNET_TC_CallCountingDelayMs", "64");
        long start = Stopwatch.GetTimestamp();
        var ended = await BoundedChild.RunAsync(info, "a client process", StartTimeout, ct, input: spec).ConfigureAwait(false);
        string[]? replied = ended.Stdout.Split('\n').Select(l => l.Trim().Split(' ')).FirstOrDefault(f => f.Length == 4 && f[0] == Replied);
        if (ended.ExitCode != 0 || replied is null)
        {
            throw new TransportException($"a client process failed (exit code {ended.ExitCode}): {ended.Stderr.Trim()}");
        }
        long at = long.Parse(replied[1], CultureInfo.InvariantCulture);
        return (at - start, double.Parse(replied[2], CultureInfo.InvariantCulture), double.Parse(replied[3], CultureInfo.InvariantCulture));
    }

    /// <summary>The client's report, printed once its reply is checked: the moment, then its CPU and allocations to then.</summary>
    private static string Report(long repliedAt)
    {
        using var self = Process.GetCurrentProcess();
        return string.Create(CultureInfo.InvariantCulture,
            $"{Replied} {repliedAt} {self.TotalProcessorTime.TotalMicroseconds:0} {GC.GetTotalAllocatedBytes(precise: true)}");
    }
}
