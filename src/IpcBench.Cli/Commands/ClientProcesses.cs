using System.Globalization;
using System.Text.Json;
using System.Text.Json.Serialization;
using IpcBench.Contract;
using IpcBench.Harness.Hosting;
using IpcBench.Harness.Measurement;
using IpcBench.Kit.Files;
using IpcBench.Kit.Processes;

namespace IpcBench.Cli.Commands;

/// <summary>
/// <c>ping --client-processes P</c>: the clients spread over P ipcbench processes (each <c>ping --worker-output</c>), the
/// classic "several processes x several threads" load. Each warms up and reports READY; once all have, they are
/// released together ("go" on their stdin), and each leaves its result in a private directory: its latency recorder,
/// merged without loss so that the percentiles are over every request of every process, and its clients' rates. A worker whose
/// stdin closes (this process gone) stops at once.
/// </summary>
internal static class ClientProcesses
{
    /// <summary>The line a worker waits for on stdin before it measures.</summary>
    public const string Go = "go";

    /// <summary>How long a worker may take to connect and warm up (on top of a warm-up given as a time).</summary>
    private static readonly TimeSpan ReadyTimeout = TimeSpan.FromMinutes(2);

    /// <summary>What a worker reports, as PREFIX.json.</summary>
    /// <param name="Start">The measured stretch's start, in Stopwatch ticks: the same clock in every process of the machine.</param>
    public sealed record WorkerResult(long Start, long End, long Errors, double CpuUs, double AllocatedBytes, double[] ClientRequestsPerSecond,
        LatencyRecorder.Exported Latency);

    /// <summary>Runs the workers against <paramref name="address"/> and merges what they measured.</summary>
    /// <param name="arguments">The loop's options as ping arguments, for one worker with its clients, count and rate.</param>
    /// <param name="stats">A connection of this process's own, to ask the server its CPU time before and after.</param>
    /// <param name="client">The ipcbench to run the workers with (this build's, or the build of another runtime).</param>
    public static async Task<LoopResult> RunAsync(ServerCommand client, Uri address, LoopOptions loop, int processes, IConnection stats,
        Func<LoopOptions, IEnumerable<string>> arguments, CancellationToken ct)
    {
        string directory = Path.GetDirectoryName(PrivateDirectory.Resolve(PrivateDirectory.DefaultPath("client"), out string? created))!;
        var workers = new ServerProcess?[processes];
        try
        {
            var starting = Enumerable.Range(0, processes).Select(async i =>
            {
                var info = PingCommand.CallingServer(client.StartInfo(["ping", .. arguments(Part(loop, i, processes)), "--worker-output", Prefix(directory, i)]),
                    address);
                workers[i] = await ServerProcess.StartAsync(info, $"client process {i + 1}",
                    line => Console.Error.WriteLine($"[client process {i + 1}] {line}"), ReadyTimeout + loop.WarmupDuration, ct);
            }).ToArray();
            await Task.WhenAll(starting).ConfigureAwait(false);

            var server = await ServerStats.CpuMeter.StartAsync(stats, loop.TolerateLoss, ct).ConfigureAwait(false);
            foreach (var worker in workers)
            {
                worker!.Send(Go);
            }
            await WaitForAllAsync(workers!, ct).ConfigureAwait(false);
            double? serverCpu = await server.StopAsync(ct).ConfigureAwait(false);
            return Merge([.. Enumerable.Range(0, processes).Select(i => Read(Prefix(directory, i)))], loop, serverCpu);
        }
        finally
        {
            foreach (var worker in workers)
            {
                if (worker is not null)
                {
                    await worker.DisposeAsync().ConfigureAwait(false);
                }
            }
            PrivateDirectory.Remove(created);
        }
    }

    /// <summary>
    /// Waits for every worker to exit with 0. A worker that stopped (SIGSTOP, a frozen machine) fails no request and never
    /// exits: it is one that has not been heard from (<see cref="Heartbeat"/>) for <see cref="SilenceLimit"/>. A worker
    /// that runs but whose requests hang fails by itself, since each request has its timeout.
    /// </summary>
    private static async Task WaitForAllAsync(ServerProcess[] workers, CancellationToken ct)
    {
        var exits = workers.Select(w => w.WaitForExitAsync(ct)).ToArray();
        var all = Task.WhenAll(exits);
        while (await Task.WhenAny(all, Task.Delay(HeartbeatPeriod, ct)).ConfigureAwait(false) != all)
        {
            for (int i = 0; i < workers.Length; i++)
            {
                if (!exits[i].IsCompleted && workers[i].Silence > SilenceLimit)
                {
                    throw new TransportException($"client process {i + 1} has not been heard from for {SilenceLimit.TotalSeconds:0} s: stopped or frozen");
                }
            }
        }
        for (int i = 0; i < workers.Length; i++)
        {
            if (await exits[i].ConfigureAwait(false) is var code and not 0)
            {
                throw new TransportException($"client process {i + 1} failed (exit code {code}): {workers[i].RecentErrors}");
            }
        }
    }

    /// <summary>How often a worker says it is alive while it measures.</summary>
    private static readonly TimeSpan HeartbeatPeriod = TimeSpan.FromSeconds(1);

    /// <summary>How long a worker may go unheard: many heartbeats, so that one starved of its CPU for a while is not taken for stopped.</summary>
    private static readonly TimeSpan SilenceLimit = TimeSpan.FromSeconds(30);

    /// <summary>A worker's side: a line on stdout every <see cref="HeartbeatPeriod"/> until disposed.</summary>
    public static IDisposable Heartbeat() => new Timer(_ =>
    {
        Console.Out.WriteLine("ALIVE");
        Console.Out.Flush();
    }, null, TimeSpan.Zero, HeartbeatPeriod);

    /// <summary>Worker <paramref name="i"/>'s share: its clients, and the count, warm-up and rate in proportion.</summary>
    public static LoopOptions Part(LoopOptions loop, int i, int processes)
    {
        int Share(int total) => total / processes + (i < total % processes ? 1 : 0);
        int clients = Share(loop.Clients);
        double portion = (double)clients / loop.Clients;
        return loop with
        {
            Clients = clients,
            Count = Math.Max(1, (int)Math.Round(loop.Count * portion)),
            Warmup = (int)Math.Round(loop.Warmup * portion),
            Rate = loop.Rate * portion,
        };
    }

    private static string Prefix(string directory, int i) => Path.Combine(directory, $"client-{i + 1}");

    /// <summary>A worker's side: its result as <paramref name="prefix"/>.json.</summary>
    public static void Write(string prefix, LoopResult result)
    {
        long n = Math.Max(result.Latency.Count, 1);
        var report = new WorkerResult(result.Span.Start, result.Span.End, result.Errors, result.Cost.CpuUsPerOp * n,
            result.Cost.AllocatedBytesPerOp * n, [.. result.ClientRequestsPerSecond], result.Recorder!.Export());
        File.WriteAllText(prefix + ".json", JsonSerializer.Serialize(report, WorkerJson.Default.WorkerResult));
    }

    private static WorkerResult Read(string prefix) =>
        JsonSerializer.Deserialize(File.ReadAllText(prefix + ".json"), WorkerJson.Default.WorkerResult) ?? throw new TransportException($"{prefix}.json is empty");

    /// <summary>One result from the workers': percentiles over every request, the rate over the span from the first start to the last end.</summary>
    private static LoopResult Merge(IReadOnlyList<WorkerResult> parts, LoopOptions loop, double? serverCpu)
    {
        var recorder = LatencyRecorder.Combine([.. parts.Select(p => LatencyRecorder.Import(p.Latency))]);
        long start = parts.Min(p => p.Start), end = parts.Max(p => p.End);
        long n = Math.Max(recorder.Count, 1);
        var cost = new Cost(System.Diagnostics.Stopwatch.GetElapsedTime(start, end), parts.Sum(p => p.CpuUs) / n,
            parts.Sum(p => p.AllocatedBytes) / n);
        return recorder.Result(parts.Sum(p => p.Errors), cost, serverCpu) with
        {
            ClientRequestsPerSecond = [.. parts.SelectMany(p => p.ClientRequestsPerSecond)],
            OfferedRate = loop.Rate > 0 ? loop.Rate : null,
            Span = (start, end),
        };
    }

    /// <summary>A worker's wait for "go": completes on that line; cancels <paramref name="run"/> when stdin closes first, or later.</summary>
    public static Task WaitForGo(CancellationTokenSource run)
    {
        var go = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        _ = DedicatedThread.Start("ipcbench worker stdin", () =>
        {
            while (Console.In.ReadLine() is { } line)
            {
                if (line.Trim() == Go)
                {
                    go.TrySetResult();
                }
            }
            go.TrySetCanceled();
            run.Cancel(); // the parent is gone: stop measuring for nobody
        });
        return go.Task;
    }

    /// <summary>A number as a command line takes it.</summary>
    public static string Invariant(double n) => n.ToString(CultureInfo.InvariantCulture);
}

/// <summary>A worker's result in JSON, generated at build time: a NativeAOT build has no reflection-based serializer.</summary>
[JsonSerializable(typeof(ClientProcesses.WorkerResult))]
internal sealed partial class WorkerJson : JsonSerializerContext;
