using System.Diagnostics;
using IpcBench.Kit.Files;

namespace IpcBench.Kit.Processes;

/// <summary>What a child process left when it ended: its exit code and all it wrote.</summary>
public sealed record ChildOutput(int ExitCode, string Stdout, string Stderr)
{
    /// <summary>The last line on stderr: where IpcBench's verbs, and most tools, put the one line that says why they failed.</summary>
    public string LastError => Stderr.Trim().Split('\n')[^1].Trim();
}

/// <summary>
/// Runs a child process to its end within a bound, for the commands IpcBench starts and waits for (a round's ping, a
/// start-scenario client, ip, git). Its output is read as it comes, so a full pipe cannot block it; on the bound or a
/// cancellation it is killed with all it started, waited for, and the files a killed IpcBench leaves are removed, so
/// nothing it made outlives the call.
/// </summary>
public static class BoundedChild
{
    /// <summary>How long a killed child may take to be gone before the call gives up waiting for it.</summary>
    private static readonly TimeSpan ReapTimeout = TimeSpan.FromSeconds(5);

    /// <param name="what">The child in the timeout's message ("ip link add ...").</param>
    /// <param name="input">A line written to its stdin, which is then closed; null: no stdin.</param>
    /// <exception cref="TimeoutException">It did not end within <paramref name="bound"/>.</exception>
    /// <exception cref="InvalidOperationException">It could not be started.</exception>
    public static async Task<ChildOutput> RunAsync(ProcessStartInfo info, string what, TimeSpan bound, CancellationToken ct,
        string? input = null)
    {
        info.RedirectStandardOutput = info.RedirectStandardError = true;
        info.RedirectStandardInput = input is not null;
        info.UseShellExecute = false;
        using var process = Process.Start(info) ?? throw new InvalidOperationException($"could not start {info.FileName}");
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(ct);
        timeout.CancelAfter(bound);
        try
        {
            var stdout = process.StandardOutput.ReadToEndAsync(timeout.Token);
            var stderr = process.StandardError.ReadToEndAsync(timeout.Token);
            if (input is not null)
            {
                await process.StandardInput.WriteLineAsync(input.AsMemory(), timeout.Token).ConfigureAwait(false);
                process.StandardInput.Close();
            }
            await process.WaitForExitAsync(timeout.Token).ConfigureAwait(false);
            return new ChildOutput(process.ExitCode, await stdout.ConfigureAwait(false), await stderr.ConfigureAwait(false));
        }
        catch (OperationCanceledException) when (!ct.IsCancellationRequested)
        {
            throw new TimeoutException($"{what} did not finish within {Describe(bound)}");
        }
        finally
        {
            if (!process.HasExited)
            {
                await KillAsync(process).ConfigureAwait(false);
            }
        }
    }

    private static async Task KillAsync(Process process)
    {
        ProcessTree.Kill(process);
        using var reap = new CancellationTokenSource(ReapTimeout);
        try
        {
            await process.WaitForExitAsync(reap.Token).ConfigureAwait(false);
            PrivateDirectory.RemoveLeftBy(process.Id);
        }
        catch (OperationCanceledException)
        {
            Log.Warn($"process {process.Id} ({process.StartInfo.FileName}) was killed but not gone within {ReapTimeout.TotalSeconds:0} s");
        }
    }

    private static string Describe(TimeSpan bound) =>
        bound >= TimeSpan.FromMinutes(2) ? $"{bound.TotalMinutes:0} minutes" : $"{bound.TotalSeconds:0} s";
}
