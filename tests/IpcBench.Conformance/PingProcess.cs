using System.Diagnostics;
using IpcBench.Harness.Hosting;
using IpcBench.Kit.Processes;

namespace IpcBench.Conformance;

/// <summary>
/// <c>ipcbench ping</c> as a process of its own, as users run it: its output read as it comes (a full pipe would stall
/// it), waited for with a bound, and killed with everything it started if it overruns or the test ends first.
/// </summary>
internal sealed class PingProcess : IDisposable
{
    private readonly Process _process;
    private readonly Task<string> _errors;

    private PingProcess(Process process)
    {
        _process = process;
        _errors = process.StandardError.ReadToEndAsync();
        _ = process.StandardOutput.ReadToEndAsync();
    }

    public int Id => _process.Id;
    public bool HasExited => _process.HasExited;

    /// <summary>Starts <c>ipcbench ping ARGS</c>, its stdin a pipe of this test's (nothing of the test host's to read).</summary>
    public static PingProcess Start(params IEnumerable<string> args)
    {
        var info = ServerCommand.Resolve().StartInfo();
        info.ArgumentList.Add("ping");
        foreach (string arg in args)
        {
            info.ArgumentList.Add(arg);
        }
        info.RedirectStandardOutput = info.RedirectStandardError = info.RedirectStandardInput = true;
        return new PingProcess(Process.Start(info)!);
    }

    /// <summary>What it wrote to stderr, once it has ended (the read completes only then).</summary>
    public Task<string> ErrorsAsync() => _errors;

    /// <summary>Its exit code, within <paramref name="bound"/>: past that it is killed and the test fails with its stderr.</summary>
    public async Task<int> ExitCodeAsync(TimeSpan bound)
    {
        using var timeout = new CancellationTokenSource(bound);
        try
        {
            await _process.WaitForExitAsync(timeout.Token);
        }
        catch (OperationCanceledException)
        {
            ProcessTree.Kill(_process);
            await _process.WaitForExitAsync();
            Assert.Fail($"ping did not end within {bound.TotalSeconds:0} s: {await _errors}");
        }
        return _process.ExitCode;
    }

    /// <summary>Asserts that it ends within <paramref name="bound"/> and succeeds.</summary>
    public async Task SucceedsAsync(TimeSpan bound, string what = "ping")
    {
        int exit = await ExitCodeAsync(bound);
        Assert.True(exit == 0, $"{what} exited {exit}: {await _errors}");
    }

    /// <summary>SIGKILL to this process alone: it closes nothing itself, as a client that crashed.</summary>
    public async Task KillAsync()
    {
        _process.Kill();
        await _process.WaitForExitAsync();
    }

    public void Dispose()
    {
        if (!_process.HasExited)
        {
            ProcessTree.Kill(_process);
            _process.WaitForExit(TimeSpan.FromSeconds(10));
        }
        _process.Dispose();
    }
}
