using System.Diagnostics;
using System.Text.Json;
using System.Text.Json.Serialization;
using IpcBench.Contract;
using IpcBench.Harness.Hosting;
using IpcBench.Harness.Measurement;
using IpcBench.Kit.Files;
using IpcBench.Kit.Processes;

namespace IpcBench.Harness.Running;

/// <summary>
/// The clients spread over several client processes (<c>--client-processes</c>, and the one client process of another
/// runtime's build, <c>--runtime</c>): the classic "several processes x several threads" load. Each process
/// (<c>ipcbench worker</c>) is handed its share of the spec on stdin, warms up and reports READY; once all have, they are
/// released together ("go" on their stdin), and each leaves its result in a private directory: its latency recorder,
/// merged without loss so that the percentiles are over every request of every process, and its clients' rates. A worker
/// whose stdin closes (its parent gone) stops at once; one that goes silent (stopped, frozen) fails the run.
/// </summary>
public static class ClientProcessScenario
{
    /// <summary>The hidden verb a worker runs: <c>ipcbench worker --output PREFIX</c>, its spec the first line on stdin.</summary>
    public const string Verb = "worker";

    /// <summary>The line a worker waits for on stdin before it measures.</summary>
    public const string Go = "go";

    /// <summary>How long a worker may take to connect and warm up (on top of a warm-up given as a time).</summary>
    private static readonly TimeSpan ReadyTimeout = TimeSpan.FromMinutes(2);

    /// <summary>How often a worker says it is alive while it measures.</summary>
    private static readonly TimeSpan HeartbeatPeriod = TimeSpan.FromSeconds(1);

    /// <summary>How long a worker may go unheard: many heartbeats, so that one starved of its CPU for a while is not taken for stopped.</summary>
    private static readonly TimeSpan SilenceLimit = TimeSpan.FromSeconds(30);

    /// <summary>What a worker reports, as PREFIX.json.</summary>
    /// <param name="Start">The measured stretch's start, in Stopwatch ticks: the same clock in every process of the machine.</param>
    /// <param name="WarmUp">Its warm-up (null: none).</param>
    public sealed record WorkerResult(long Start, long End, long Errors, double CpuUs, double AllocatedBytes, double[] ClientRequestsPerSecond,
        LatencyRecorder.Exported Latency, WarmUp.Spent? WarmUp);

    /// <summary>Runs the workers of <paramref name="spec"/> (its server set) and merges what they measured.</summary>
    /// <param name="stats">A connection of this process's own, to ask the server its CPU time before and after.</param>
    /// <param name="client">The ipcbench to run the workers with (this build's, or the build of another runtime).</param>
    public static async Task<LoopResult> RunAsync(ServerCommand client, ITransport transport, CaseSpec spec, IConnection stats, CancellationToken ct)
    {
        string directory = Path.GetDirectoryName(PrivateDirectory.Resolve(PrivateDirectory.DefaultPath("client"), out string? created))!;
        int processes = spec.Key.ClientProcesses;
        var workers = new ServerProcess?[processes];
        try
        {
            var starting = Enumerable.Range(0, processes).Select(async i =>
            {
                var info = client.StartInfo(Verb, "--transport", transport.Name, "--output", Prefix(directory, i));
                workers[i] = await ServerProcess.StartAsync(info, $"client process {i + 1}",
                    line => Console.Error.WriteLine($"[client process {i + 1}] {line}"), ReadyTimeout + spec.WarmupDuration, ct,
                    firstLine: Part(spec, i).ToJson()).ConfigureAwait(false);
            }).ToArray();
            await Task.WhenAll(starting).ConfigureAwait(false);

            var server = await ServerStats.Meter.StartAsync(stats, transport.Capabilities.MayLoseMessages, ct).ConfigureAwait(false);
            foreach (var worker in workers)
            {
                worker!.Send(Go);
            }
            await WaitForAllAsync(workers!, ct).ConfigureAwait(false);
            var serverShare = await server.StopAsync(ct).ConfigureAwait(false);
            return Merge([.. Enumerable.Range(0, processes).Select(i => Read(Prefix(directory, i)))], spec, serverShare);
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
    /// A worker's side: connects its clients to the spec's server, warms up, says READY, waits for "go", measures, and
    /// leaves its result as <paramref name="prefix"/>.json, saying it is alive every second meanwhile.
    /// </summary>
    public static async Task RunWorkerAsync(ITransport transport, CaseSpec spec, string prefix, CancellationToken ct)
    {
        _ = TieringMonitor.Process; // listening before the first connection, as in CaseRunner.PrepareAsync
        var loop = spec.Loop(transport);
        var connections = new List<IConnection>();
        using var run = CancellationTokenSource.CreateLinkedTokenSource(ct);
        var go = WaitForGo(run);
        using var heartbeat = new Timer(_ =>
        {
            Console.Out.WriteLine("ALIVE");
            Console.Out.Flush();
        }, null, TimeSpan.Zero, HeartbeatPeriod);
        try
        {
            while (connections.Count < spec.Key.Clients)
            {
                connections.Add(await transport.ConnectAsync(spec.Server!, ct).ConfigureAwait(false));
            }
            var result = await LoadLoop.RunAsync(connections, loop, null, run.Token, async released =>
            {
                Console.Out.WriteLine($"READY {new Uri(prefix)}");
                Console.Out.Flush();
                await go.WaitAsync(released).ConfigureAwait(false);
            }).ConfigureAwait(false);
            Write(prefix, result);
        }
        finally
        {
            foreach (var connection in connections)
            {
                await connection.DisposeAsync().ConfigureAwait(false);
            }
        }
    }

    /// <summary>Worker <paramref name="i"/>'s share: its clients, and the count, warm-up and rate in proportion.</summary>
    public static CaseSpec Part(CaseSpec spec, int i)
    {
        int processes = spec.Key.ClientProcesses;
        int Share(int total) => total / processes + (i < total % processes ? 1 : 0);
        int clients = Share(spec.Key.Clients);
        double portion = (double)clients / spec.Key.Clients;
        return spec with
        {
            Key = spec.Key with { Clients = clients, ClientProcesses = 1, Rate = spec.Key.Rate * portion },
            Count = Math.Max(1, (int)Math.Round(spec.Count * portion)),
            Warmup = (int)Math.Round(spec.Warmup * portion),
            ClientBuild = null, // the worker is that build
        };
    }

    /// <summary>
    /// Waits for every worker to exit with 0. A worker that stopped (SIGSTOP, a frozen machine) fails no request and never
    /// exits: it is one that has not been heard from for <see cref="SilenceLimit"/>. A worker that runs but whose requests
    /// hang fails by itself, since each request has its timeout.
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

    private static string Prefix(string directory, int i) => Path.Combine(directory, $"client-{i + 1}");

    private static void Write(string prefix, LoopResult result)
    {
        long n = Math.Max(result.Latency.Count, 1);
        var report = new WorkerResult(result.Span.Start, result.Span.End, result.Errors, result.Cost.CpuUsPerOp * n,
            result.Cost.AllocatedBytesPerOp * n, [.. result.ClientRequestsPerSecond], result.Recorder!.Export(), result.WarmUpSpent);
        File.WriteAllText(prefix + ".json", JsonSerializer.Serialize(report, WorkerJson.Default.WorkerResult));
    }

    private static WorkerResult Read(string prefix) =>
        JsonSerializer.Deserialize(File.ReadAllText(prefix + ".json"), WorkerJson.Default.WorkerResult) ?? throw new TransportException($"{prefix}.json is empty");

    /// <summary>One result from the workers': percentiles over every request, the rate over the span from the first start to the last end.</summary>
    private static LoopResult Merge(IReadOnlyList<WorkerResult> parts, CaseSpec spec, ServerStats.ServerShare? serverShare)
    {
        var recorder = LatencyRecorder.Combine([.. parts.Select(p => LatencyRecorder.Import(p.Latency))]);
        long start = parts.Min(p => p.Start), end = parts.Max(p => p.End);
        long n = Math.Max(recorder.Count, 1);
        var cost = new Cost(Stopwatch.GetElapsedTime(start, end), parts.Sum(p => p.CpuUs) / n, parts.Sum(p => p.AllocatedBytes) / n);
        return recorder.Result(parts.Sum(p => p.Errors), cost, serverShare) with
        {
            ClientRequestsPerSecond = [.. parts.SelectMany(p => p.ClientRequestsPerSecond)],
            OfferedRate = spec.Key.Rate > 0 ? spec.Key.Rate : null,
            Span = (start, end),
            WarmUpSpent = Slowest(parts.Select(p => p.WarmUp)),
        };
    }

    /// <summary>The workers' warm-up as one: they are released together, once the slowest is done; its JIT done when every one's was.</summary>
    private static WarmUp.Spent? Slowest(IEnumerable<WarmUp.Spent?> warmUps) =>
        warmUps.OfType<WarmUp.Spent>().ToList() is { Count: > 0 } all
            ? all.MaxBy(w => w.Asked + w.JitWait) with { JitSettled = all.All(w => w.JitSettled) }
            : null;

    /// <summary>A worker's wait for "go": completes on that line; cancels <paramref name="run"/> when stdin closes first, or later.</summary>
    private static Task WaitForGo(CancellationTokenSource run)
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
}

/// <summary>A worker's result in JSON, generated at build time: a NativeAOT build has no reflection-based serializer.</summary>
[JsonSerializable(typeof(ClientProcessScenario.WorkerResult))]
internal sealed partial class WorkerJson : JsonSerializerContext;
