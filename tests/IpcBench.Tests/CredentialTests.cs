using System.Diagnostics;

namespace IpcBench.Tests;

/// <summary>
/// The broker's password, given in IPCBENCH_RABBITMQ_URI or in a --server address, appears nowhere IpcBench writes:
/// not on stdout or stderr, not in --json, not in the run folder. Needs the broker ./test.sh starts.
/// </summary>
public class CredentialTests
{
    private const string User = "ipcbench-credential-test";

    [Fact]
    public async Task A_run_with_the_brokers_password_shows_it_nowhere()
    {
        string password = "pw-" + Guid.NewGuid().ToString("N");
        string results = Path.Combine(Path.GetTempPath(), $"ipcbench-test-results-{Guid.NewGuid():N}");
        string json = Path.Combine(results, "ping.json");
        await RabbitMqCtlAsync("add_user", User, password);
        try
        {
            await RabbitMqCtlAsync("set_permissions", "-p", "/", User, ".*", ".*", ".*");
            Directory.CreateDirectory(results);
            var (exit, stdout, stderr) = await CliTests.RunWithAsync(new Dictionary<string, string>
            {
                ["IPCBENCH_RABBITMQ_URI"] = $"amqp://{User}:{password}@127.0.0.1:5672/",
                ["IPCBENCH_RESULTS"] = results,
            }, "ping", "--transport", "amqp", "--count", "200", "--warmup", "20", "--json", json);

            Assert.True(exit == 0, stderr); // it logged in with the password, so the password was there to leak
            Assert.DoesNotContain(password, stdout + stderr);
            var written = Directory.GetFiles(results, "*", SearchOption.AllDirectories);
            Assert.Contains(written, f => Path.GetFileName(f) == "results.json");
            Assert.All(written, f => Assert.DoesNotContain(password, File.ReadAllText(f)));
        }
        finally
        {
            await RabbitMqCtlAsync("delete_user", User);
            Directory.Delete(results, recursive: true);
        }
    }

    [Fact]
    public async Task A_refused_login_says_so_without_the_password()
    {
        string password = "pw-" + Guid.NewGuid().ToString("N");
        var (exit, stdout, stderr) = await CliTests.RunWithAsync(
            new Dictionary<string, string> { ["IPCBENCH_RABBITMQ_URI"] = $"amqp://nobody:{password}@127.0.0.1:5672/" },
            "ping", "--transport", "amqp", "--count", "10");

        Assert.Equal(1, exit);
        Assert.DoesNotContain(password, stdout + stderr);
        Assert.Contains("amqp://127.0.0.1:5672/", stderr); // the broker is named, without the user part
    }

    private static async Task RabbitMqCtlAsync(params string[] args)
    {
        var info = new ProcessStartInfo("rabbitmqctl") { RedirectStandardOutput = true, RedirectStandardError = true };
        foreach (string arg in args)
        {
            info.ArgumentList.Add(arg);
        }
        using var ctl = Process.Start(info)!;
        var stderr = ctl.StandardError.ReadToEndAsync();
        _ = ctl.StandardOutput.ReadToEndAsync();
        await ctl.WaitForExitAsync(new CancellationTokenSource(TimeSpan.FromSeconds(60)).Token);
        Assert.True(ctl.ExitCode == 0, $"rabbitmqctl {args[0]}: {await stderr}");
    }
}
