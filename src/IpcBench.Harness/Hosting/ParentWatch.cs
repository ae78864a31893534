using System.Diagnostics;
using System.Runtime.InteropServices;
using IpcBench.Kit.Processes;

namespace IpcBench.Harness.Hosting;

/// <summary>
/// Completes when the process that started a server goes away, so that no server outlives its
/// client: its stdin reaching end-of-file (the parent closed it, or died), or the parent's pid ending.
/// </summary>
public static partial class ParentWatch
{
    private static readonly TimeSpan PollInterval = TimeSpan.FromMilliseconds(250);

    /// <summary>The parent's pid as the OS reports it now (null where that is not available).</summary>
    public static int? CurrentParentPid() => OperatingSystem.IsWindows() ? null : GetParentPid();

    /// <param name="parentPid">The parent to watch; 1 (init) or less means there is none worth watching.</param>
    /// <param name="watchStdin">Also end when stdin closes (for servers started by a client over a pipe).</param>
    public static Task WhenGoneAsync(int parentPid, bool watchStdin, CancellationToken ct)
    {
        var parentExited = parentPid > 1 ? ParentExitedAsync(parentPid, ct) : Task.Delay(Timeout.Infinite, ct);
        if (!watchStdin)
        {
            return parentExited;
        }
        // A blocking read on a thread of its own: the console stream's ReadAsync would block a
        // thread-pool thread for the server's whole life, and in a server started on one CPU (a pool
        // of one) every async transport would then stall for the pool to grow (0.5-1 s pauses seen).
        var stdinClosed = DedicatedThread.Start("ipcbench stdin watch", () =>
        {
            using var stdin = Console.OpenStandardInput();
            byte[] buffer = new byte[256];
            while (stdin.Read(buffer) > 0)
            {
            }
        });
        return Task.WhenAny(stdinClosed, parentExited);
    }

    private static async Task ParentExitedAsync(int parentPid, CancellationToken ct)
    {
        if (OperatingSystem.IsWindows())
        {
            try
            {
                using var parent = Process.GetProcessById(parentPid);
                await parent.WaitForExitAsync(ct).ConfigureAwait(false);
            }
            catch (ArgumentException)
            {
                // Already gone.
            }
            return;
        }
        if (GetParentPid() == 0)
        {
            // The init of a PID namespace of its own (Isolation.Container): the parent is outside it and its pid means
            // nothing here, so only stdin (or the namespace's end, which kills init) tells.
            await Task.Delay(Timeout.Infinite, ct).ConfigureAwait(false);
        }
        // For our real parent, getppid() is exact: the kernel re-parents an orphan at once, so pid
        // reuse cannot fool it. For any other pid, ask whether it still exists.
        bool isParent = GetParentPid() == parentPid;
        while (isParent ? GetParentPid() == parentPid : ProcessLiveness.IsAlive(parentPid))
        {
            await Task.Delay(PollInterval, ct).ConfigureAwait(false);
        }
    }

    [LibraryImport("libc", EntryPoint = "getppid")]
    private static partial int GetParentPid();
}
