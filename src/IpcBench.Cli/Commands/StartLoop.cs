using System.Diagnostics;
using System.Globalization;
using IpcBench.Contract;
using IpcBench.Harness.Hosting;
using IpcBench.Harness.Measurement;
using IpcBench.Kit.Processes;

namespace IpcBench.Cli.Commands;

/// <summary>
/// <c>ping --scenario start</c>: each measured request is a new client process, timed from just before it is started to
/// the moment it has its checked reply (<c>ping --first-reply</c>, which reports that moment on the one clock every
/// process of the machine shares): loading the runtime and ipcbench, connecting, one request. Where a JIT, a
/// ReadyToRun and a NativeAOT build differ most. The client's CPU and allocations are each process's own, up to its reply.
/// </summary>
internal static class StartLoop
{
    /// <summary>The line a <c>--first-reply</c> client prints: the Stopwatch timestamp of its reply, its CPU time in microseconds and its allocated bytes.</summary>
    public const string Replied = "REPLIED";

    private static readonly TimeSpan StartTimeout = TimeSpan.FromSeconds(60);

    public static async Task<LoopResult> RunAsync(ServerCommand client, ITransport transport, Uri address, LoopOptions loop,
        Action<double>? progress, CancellationToken ct)
    {
        for (int i = 0; i < loop.Warmup; i++)
        {
            await StartOnceAsync(client, transport, address, loop.Size, ct).ConfigureAwait(false); // the executable and its libraries into the page cache
        }
        var recorder = new LatencyRecorder();
        long started = Stopwatch.GetTimestamp();
        double cpuUs = 0, allocated = 0;
        for (int i = 0; i < loop.Count; i++)
        {
            var (ticks, cpu, bytes) = await StartOnceAsync(client, transport, address, loop.Size, ct).ConfigureAwait(false);
            recorder.Record(ticks);
            (cpuUs, allocated) = (cpuUs + cpu, allocated + bytes);
            progress?.Invoke((i + 1.0) / loop.Count);
        }
        var cost = new Cost(Stopwatch.GetElapsedTime(started), cpuUs / loop.Count, allocated / loop.Count);
        return recorder.Result(0, cost, null);
    }

    /// <summary>One client process: its start-to-reply time in Stopwatch ticks, and its own CPU and allocations to then.</summary>
    private static async Task<(long Ticks, double CpuUs, double Allocated)> StartOnceAsync(ServerCommand client, ITransport transport, Uri address,
        int size, CancellationToken ct)
    {
        var info = PingCommand.CallingServer(client.StartInfo("ping", "--transport", transport.Name,
            "--size", size.ToString(CultureInfo.InvariantCulture), "--first-reply"), address);
        info.RedirectStandardOutput = true;
        info.RedirectStandardError = true;
        info.UseShellExecute = false;
        long start = Stopwatch.GetTimestamp();
        using var process = Process.Start(info) ?? throw new TransportException($"could not start {info.FileName}");
        var errors = process.StandardError.ReadToEndAsync(ct);
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(ct);
        timeout.CancelAfter(StartTimeout);
        try
        {
            string output = await process.StandardOutput.ReadToEndAsync(timeout.Token).ConfigureAwait(false);
            await process.WaitForExitAsync(timeout.Token).ConfigureAwait(false);
            string[]? replied = output.Split('\n').Select(l => l.Trim().Split(' ')).FirstOrDefault(f => f.Length == 4 && f[0] == Replied);
            if (process.ExitCode != 0 || replied is null)
            {
                throw new TransportException($"a client process failed (exit code {process.ExitCode}): {(await errors.ConfigureAwait(false)).Trim()}");
            }
            long at = long.Parse(replied[1], CultureInfo.InvariantCulture);
            return (at - start, double.Parse(replied[2], CultureInfo.InvariantCulture), double.Parse(replied[3], CultureInfo.InvariantCulture));
        }
        catch (OperationCanceledException) when (!ct.IsCancellationRequested)
        {
            throw new TransportException($"a client process did not reply and exit within {StartTimeout.TotalSeconds:0} s");
        }
        finally
        {
            if (!process.HasExited)
            {
                ProcessTree.Kill(process);
            }
        }
    }

    /// <summary>The <c>--first-reply</c> client's report, printed once its reply is checked.</summary>
    public static string Report(long repliedAt)
    {
        using var self = Process.GetCurrentProcess();
        return string.Create(CultureInfo.InvariantCulture,
            $"{Replied} {repliedAt} {self.TotalProcessorTime.TotalMicroseconds:0} {GC.GetTotalAllocatedBytes(precise: true)}");
    }
}
