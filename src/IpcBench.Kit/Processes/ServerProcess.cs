using System.Diagnostics;
using IpcBench.Contract;
using IpcBench.Kit.Files;

namespace IpcBench.Kit.Processes;

/// <summary>
/// An <c>ipcbench serve</c> child process, or another server program that keeps its protocol. Start
/// waits for its <c>READY &lt;uri&gt;</c> line; disposing closes its stdin (its cue to stop cleanly and
/// remove its files), then kills it if it lingers. The child also exits by itself when this process
/// dies, since its stdin then closes.
/// </summary>
public sealed class ServerProcess : IAsyncDisposable
{
    public static readonly TimeSpan DefaultReadyTimeout = TimeSpan.FromSeconds(30);
    /// <summary>
    /// How long a stopping server process gets before it is killed: its server's own bounded stop
    /// (<see cref="IServer.StopTimeout"/>), then a margin for the serve command and the runtime to exit. Equal to the
    /// server's bound, it killed a server whose sessions took their whole bound to end, a stop that was slow, not stuck.
    /// </summary>
    private static readonly TimeSpan StopTimeout = IServer.StopTimeout + TimeSpan.FromSeconds(5);
    private const int KeptStderrLines = 20;

    private readonly Process _process;
    private readonly Queue<string> _stderr = new();
    private readonly TaskCompletionSource<Uri> _ready = new(TaskCreationOptions.RunContinuationsAsynchronously);

    private ServerProcess(Process process) => _process = process;

    public Uri Address { get; private set; } = null!;

    public int ProcessId => _process.Id;

    public bool HasExited => ExitCode is not null || _process.HasExited;

    /// <summary>The exit code once the server has been stopped (0: it stopped cleanly), else null.</summary>
    public int? ExitCode { get; private set; }

    /// <summary>How long since the program last wrote a line on stdout (or was started).</summary>
    public TimeSpan Silence => Stopwatch.GetElapsedTime(Interlocked.Read(ref _lastOutput));

    private long _lastOutput = Stopwatch.GetTimestamp();

    /// <summary>The server's last stderr lines, for error messages.</summary>
    public string RecentErrors
    {
        get
        {
            lock (_stderr)
            {
                return string.Join(Environment.NewLine, _stderr);
            }
        }
    }

    /// <summary>
    /// Starts any server program that keeps the same protocol: one <c>READY &lt;uri&gt;</c> line on stdout once
    /// it accepts, and a clean stop when its stdin closes (the WCF host under Mono does).
    /// </summary>
    /// <param name="name">What the program is, for error messages ("the wcf host").</param>
    /// <param name="firstLine">A line written to the program's stdin as soon as it starts (a client process's spec), before READY is awaited.</param>
    public static async Task<ServerProcess> StartAsync(ProcessStartInfo info, string name,
        Action<string>? forwardStderr = null, TimeSpan? readyTimeout = null, CancellationToken ct = default, string? firstLine = null)
    {
        info.RedirectStandardInput = true;
        info.RedirectStandardOutput = true;
        info.RedirectStandardError = true;
        info.UseShellExecute = false;

        Process process;
        try
        {
            process = Process.Start(info) ?? throw new InvalidOperationException($"could not start {info.FileName}");
        }
        catch (System.ComponentModel.Win32Exception e)
        {
            throw new TransportException($"could not start {name} ({info.FileName}): {e.Message}");
        }
        var server = new ServerProcess(process);
        process.OutputDataReceived += (_, e) => server.OnStdout(e.Data);
        process.ErrorDataReceived += (_, e) => server.OnStderr(e.Data, forwardStderr);
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        if (firstLine is not null)
        {
            server.Send(firstLine);
        }

        var timeout = readyTimeout ?? DefaultReadyTimeout;
        try
        {
            server.Address = await server._ready.Task.WaitAsync(timeout, ct).ConfigureAwait(false);
            return server;
        }
        catch (Exception e)
        {
            await server.DisposeAsync().ConfigureAwait(false);
            string why = e switch
            {
                TimeoutException => $"did not report READY within {timeout.TotalSeconds:0} s",
                OperationCanceledException => "start was cancelled",
                _ => e.Message,
            };
            string details = server.RecentErrors;
            throw new TransportException($"{name} {why}" + (details.Length > 0 ? $": {details}" : ""));
        }
    }

    /// <summary>Writes <paramref name="line"/> to the program's stdin (a client process waits for "go" there).</summary>
    public void Send(string line)
    {
        _process.StandardInput.WriteLine(line);
        _process.StandardInput.Flush();
    }

    /// <summary>Waits for the program to exit; returns its exit code, also when it was disposed meanwhile (the wcf server waits so).</summary>
    public async Task<int> WaitForExitAsync(CancellationToken ct)
    {
        await _process.WaitForExitAsync(ct).ConfigureAwait(false);
        return ExitCodeIfExited() ?? -1;
    }

    private void OnStdout(string? line)
    {
        Interlocked.Exchange(ref _lastOutput, Stopwatch.GetTimestamp());
        if (line is null)
        {
            int? code = ExitCodeIfExited();
            _ready.TrySetException(new InvalidOperationException($"exited{(code is null ? "" : $" with code {code}")} before it was ready"));
        }
        else if (line.StartsWith("READY ", StringComparison.Ordinal) && Uri.TryCreate(line[6..].Trim(), UriKind.Absolute, out var uri))
        {
            _ready.TrySetResult(uri);
        }
    }

    /// <summary>
    /// The exit code if the program has exited. Asked from the end-of-stdout event, which can arrive after
    /// <see cref="DisposeAsync"/> has disposed the process (the exit code is kept then); a throw there would end this process.
    /// </summary>
    private int? ExitCodeIfExited()
    {
        try
        {
            return _process.HasExited ? _process.ExitCode : null;
        }
        catch (InvalidOperationException)
        {
            return ExitCode;
        }
    }

    private void OnStderr(string? line, Action<string>? forward)
    {
        if (line is null)
        {
            return;
        }
        lock (_stderr)
        {
            _stderr.Enqueue(line);
            while (_stderr.Count > KeptStderrLines)
            {
                _stderr.Dequeue();
            }
        }
        forward?.Invoke(line);
    }

    /// <summary>Kills the program and what it started, at once (a server that stopped answering); disposing then removes its files.</summary>
    public void Kill()
    {
        try
        {
            ProcessTree.Kill(_process);
        }
        catch (InvalidOperationException)
        {
            // It exited meanwhile.
        }
    }

    public async ValueTask DisposeAsync()
    {
        if (ExitCode is not null)
        {
            return; // disposed already
        }
        try
        {
            if (!_process.HasExited)
            {
                _process.StandardInput.Close();
                using var wait = new CancellationTokenSource(StopTimeout);
                try
                {
                    await _process.WaitForExitAsync(wait.Token).ConfigureAwait(false);
                }
                catch (OperationCanceledException)
                {
                    Log.Warn($"server process {_process.Id} did not stop within {StopTimeout.TotalSeconds:0} s; killing it");
                    ProcessTree.Kill(_process);
                    await _process.WaitForExitAsync(CancellationToken.None).ConfigureAwait(false);
                }
            }
        }
        catch (Exception e) when (e is InvalidOperationException or IOException)
        {
            // It exited meanwhile.
        }
        finally
        {
            ExitCode = _process.HasExited ? _process.ExitCode : -1;
            if (_process.HasExited)
            {
                PrivateDirectory.RemoveLeftBy(_process.Id); // nothing after a clean stop; a killed or crashed server's files
            }
            _process.Dispose();
        }
    }
}
