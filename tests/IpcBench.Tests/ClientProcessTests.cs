using System.Diagnostics;
using IpcBench.Harness.Hosting;

namespace IpcBench.Tests;

/// <summary>
/// The client processes ping starts (<c>--client-processes</c> workers, <c>--scenario start</c>'s clients, <c>--runtime</c>
/// builds): the server's address, which may hold a password, reaches them with their case on stdin and never on a command
/// line any user can read; and a worker that stops fails the run within a bound instead of hanging it.
/// </summary>
public sealed class ClientProcessTests : IDisposable
{
    private const string Password = "argv-s3cret";

    private readonly CliProcess _server = CliProcess.Start("serve", "--transport", "tcp");

    public void Dispose() => _server.Dispose();

    [Theory]
    [InlineData(" worker ", new[] { "--client-processes", "2", "--clients", "2", "--count", "300000" })]
    [InlineData(" first-reply ", new[] { "--scenario", "start", "--count", "20" })]
    public async Task A_password_in_the_servers_address_reaches_no_client_processs_command_line(string childFlag, string[] load)
    {
        if (!OperatingSystem.IsLinux())
        {
            Assert.Skip("reads every process's command line from Linux's /proc");
        }
        string server = (await ReadyAddressAsync()).Replace("tcp://", $"tcp://ipcbench:{Password}@", StringComparison.Ordinal);
        var info = ServerCommand.Resolve().StartInfo(["ping", "--transport", "tcp", "--no-results", .. load]);
        info.Environment["IPCBENCH_SERVER"] = server;
        info.RedirectStandardOutput = info.RedirectStandardError = true;
        using var ping = Process.Start(info)!;
        var stderr = ping.StandardError.ReadToEndAsync(TestContext.Current.CancellationToken);
        _ = ping.StandardOutput.ReadToEndAsync(TestContext.Current.CancellationToken);

        int children = 0;
        var leaks = new List<string>();
        var deadline = DateTime.UtcNow.AddSeconds(120);
        while (!ping.HasExited && DateTime.UtcNow < deadline)
        {
            foreach (string commandLine in ProcFs.CommandLines())
            {
                children += commandLine.Contains(childFlag, StringComparison.Ordinal) ? 1 : 0;
                if (commandLine.Contains(Password, StringComparison.Ordinal))
                {
                    leaks.Add(commandLine);
                }
            }
            await Task.Delay(5, TestContext.Current.CancellationToken);
        }
        await ping.WaitForExitAsync(TestContext.Current.CancellationToken).WaitAsync(TimeSpan.FromSeconds(30), TestContext.Current.CancellationToken);

        Assert.True(ping.ExitCode == 0, await stderr);
        Assert.True(children > 0, $"no client process ({childFlag}) was seen: the check saw nothing to check");
        Assert.Empty(leaks);
    }

    [Fact]
    public async Task A_stopped_client_process_fails_the_run_within_a_bound()
    {
        if (!OperatingSystem.IsLinux())
        {
            Assert.Skip("stops a process with SIGSTOP");
        }
        string server = await ReadyAddressAsync();
        using var cli = CliProcess.Start("ping", "--transport", "tcp", "--server", server, "--client-processes", "2", "--clients", "2",
            "--count", "100000000", "--warmup", "10", "--no-results");
        var ping = cli.Process;
        var stderr = ping.StandardError.ReadToEndAsync(TestContext.Current.CancellationToken);
        _ = ping.StandardOutput.ReadToEndAsync(TestContext.Current.CancellationToken);
        int? worker = null;
        var deadline = DateTime.UtcNow.AddSeconds(60);
        while (worker is null && DateTime.UtcNow < deadline && !ping.HasExited)
        {
            await Task.Delay(200, TestContext.Current.CancellationToken);
            worker = Kit.Processes.ProcessTree.Children(ping.Id).Cast<int?>()
                .FirstOrDefault(pid => ProcFs.CommandLine(pid ?? 0).Contains(" worker ", StringComparison.Ordinal));
        }
        Assert.True(worker is not null, "no client process started");
        await Task.Delay(10_000, TestContext.Current.CancellationToken); // it started, and measures (a worker stopped before it is ready meets the start's own bound, 2 minutes)
        using (var stop = Process.Start("kill", ["-STOP", $"{worker}"])!)
        {
            await stop.WaitForExitAsync(TestContext.Current.CancellationToken).WaitAsync(TimeSpan.FromSeconds(10), TestContext.Current.CancellationToken);
        }

        await ping.WaitForExitAsync(TestContext.Current.CancellationToken).WaitAsync(TimeSpan.FromSeconds(120), TestContext.Current.CancellationToken); // the bound is 30 s of silence, and 5 s to stop the rest

        Assert.Equal(1, ping.ExitCode);
        Assert.Contains("has not been heard from", await stderr);
        Assert.True(ProcFs.CommandLine(worker.Value).Length == 0, $"the stopped client process {worker} is still there");
    }

    private async Task<string> ReadyAddressAsync()
    {
        string? ready = await _server.Process.StandardOutput.ReadLineAsync(TestContext.Current.CancellationToken).AsTask().WaitAsync(TimeSpan.FromSeconds(30), TestContext.Current.CancellationToken);
        Assert.StartsWith("READY tcp://", ready);
        return ready!["READY ".Length..];
    }
}
