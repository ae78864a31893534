using System.Diagnostics;
using System.Runtime.InteropServices;
using IpcBench.Kit.Processes;

namespace IpcBench.Conformance;

/// <summary>
/// A signal that the runtime handles (SIGCONT: .NET restores the terminal on it; SIGCHLD once a process was started)
/// interrupts the system call a blocked thread is in: a read, poll or futex wait returns EINTR, and poll is never
/// restarted by the kernel. A transport that blocks in native code must resume its wait, not fail the request: a
/// run whose client starts processes (ping --client-processes, a plan) gets such signals all the time.
/// </summary>
public partial class SignalTests
{
    private const int SigCont = 18; // Linux's number (19 on macOS, which these tests do not signal)

    [Theory]
    [MemberData(nameof(TransportCases.AllVariants), MemberType = typeof(TransportCases))]
    public async Task Signals_to_every_thread_of_client_and_server_fail_no_request(string transport, string variant)
    {
        Assert.SkipUnless(OperatingSystem.IsLinux(), "signals threads by their ids from /proc, which is Linux's");
        await using var server = await TestServer.StartAsync(transport, variant);
        // No warm-up: it would go on until the client's JIT is done, seconds of this test's time, and signals reach the
        // requests as well without it.
        using var ping = PingProcess.Start("--transport", transport, "--server", server.ClientAddress().AbsoluteUri, "--warmup", "0", "--duration", "500ms", "--no-results");
        int[] processes = [ping.Id, server.Process.ProcessId, .. ProcessTree.Descendants(server.Process.ProcessId)]; // with --server, ping starts none
        int signalled = 0;
        var deadline = Stopwatch.StartNew();
        while (!ping.HasExited && deadline.Elapsed < TimeSpan.FromSeconds(60))
        {
            foreach (int pid in processes)
            {
                signalled += Threads(pid).Count(thread => Kill(thread, SigCont) == 0);
            }
            await Task.Delay(1, TestContext.Current.CancellationToken);
        }
        int exit = await ping.ExitCodeAsync(TimeSpan.FromSeconds(10));
        Assert.True(exit == 0, $"ping exited {exit} after {signalled} signals: {await ping.ErrorsAsync()}");
        Assert.True(signalled > 100, $"only {signalled} signals reached the processes: the test proves nothing");
    }

    /// <summary>The thread ids of a process (none once it is gone: a zombie's task folder says ESRCH, a reaped one's is missing).</summary>
    private static IEnumerable<int> Threads(int pid)
    {
        try
        {
            return Directory.EnumerateDirectories($"/proc/{pid}/task").Select(task => int.Parse(Path.GetFileName(task))).ToArray();
        }
        catch (IOException)
        {
            return [];
        }
    }

    /// <summary>kill(2) given a thread's id: Linux delivers the signal to that thread when it does not block it.</summary>
    [LibraryImport("libc", EntryPoint = "kill")]
    private static partial int Kill(int pid, int signal);
}
