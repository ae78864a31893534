using System.Diagnostics;
using IpcBench.Harness;
using IpcBench.Harness.Hosting;

namespace IpcBench.Tests;

/// <summary>
/// The broker's password, given in IPCBENCH_RABBITMQ_URI or in a --server address, appears nowhere IpcBench writes:
/// not on stdout or stderr, not in --json, not in the run folder. Needs the broker ./test.sh starts.
/// </summary>
public class CredentialTests
{
    private const string User = "ipcbench-credential-test";

    [Theory]
    [InlineData("amqp://guest:guest@localhost:5672/", "amqp://***@localhost:5672/")]
    [InlineData("nats://s3cret-token@127.0.0.1:4222/?subject=ipcbench.x", "nats://***@127.0.0.1:4222/?subject=ipcbench.x")]
    [InlineData("redis://:s3cret@127.0.0.1:6379/?channel=ipcbench:x", "redis://***@127.0.0.1:6379/?channel=ipcbench:x")]
    [InlineData("--server 'amqp://u:p%40ss@host/?queue=q' --count 5", "--server 'amqp://***@host/?queue=q' --count 5")]
    [InlineData("could not connect to tcp://u:p@ss@127.0.0.1:1/: refused", "could not connect to tcp://***@127.0.0.1:1/: refused")]
    [InlineData("uds://u@/tmp/s.sock and http://a:b@h:80/x?y=z@w", "uds://***@/tmp/s.sock and http://***@h:80/x?y=z@w")]
    [InlineData("\"server\": \"nats://token@127.0.0.1:4222\"", "\"server\": \"nats://***@127.0.0.1:4222\"")]
    [InlineData("tcp://127.0.0.1:5000/?pin=AB mail me@example.org", "tcp://127.0.0.1:5000/?pin=AB mail me@example.org")]
    public void Redact_masks_the_user_info_of_every_address_in_a_text_and_nothing_else(string text, string shown) =>
        Assert.Equal(shown, Secrets.Redact(text));

    [Fact]
    public async Task A_run_with_the_brokers_password_shows_it_nowhere()
    {
        string password = "pw-" + Guid.NewGuid().ToString("N");
        string results = Path.Combine(Path.GetTempPath(), $"ipcbench-test-results-{Guid.NewGuid():N}");
        string json = Path.Combine(results, "ping.json");
        await AddUserAsync(password);
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

    [Theory]
    [InlineData("--server")]
    [InlineData("IPCBENCH_SERVER")]
    public async Task A_password_in_a_servers_address_is_shown_nowhere(string givenBy)
    {
        string password = "pw-" + Guid.NewGuid().ToString("N");
        string results = Path.Combine(Path.GetTempPath(), $"ipcbench-test-results-{Guid.NewGuid():N}");
        string json = Path.Combine(results, "ping.json");
        var serverLines = new List<string>();
        await AddUserAsync(password);
        try
        {
            await RabbitMqCtlAsync("set_permissions", "-p", "/", User, ".*", ".*", ".*");
            Directory.CreateDirectory(results);
            string queue = "ipcbench-credential-" + Guid.NewGuid().ToString("N");
            var address = new Uri($"amqp://{User}:{password}@127.0.0.1:5672/?queue={queue}");
            await using (var server = await new ServeRequest("amqp") { Address = address }.StartAsync(forwardStderr: line => { lock (serverLines) serverLines.Add(line); }, ct: TestContext.Current.CancellationToken))
            {
                Assert.DoesNotContain(password, server.Address.ToString());
                var environment = new Dictionary<string, string> { ["IPCBENCH_RESULTS"] = results };
                string[] ping = ["ping", "--transport", "amqp", "--count", "100", "--warmup", "10", "--json", json, "--verbose"];
                if (givenBy == "--server")
                {
                    ping = [.. ping, "--server", address.ToString()];
                }
                else
                {
                    environment[givenBy] = address.ToString();
                }
                var (exit, stdout, stderr) = await CliTests.RunWithAsync(environment, ping);

                Assert.True(exit == 0, stderr);
                Assert.DoesNotContain(password, stdout + stderr);
                Assert.Contains($"amqp://{Secrets.Mask}@127.0.0.1:5672/", File.ReadAllText(json)); // the address is there, its user info masked
            }
            var written = Directory.GetFiles(results, "*", SearchOption.AllDirectories);
            Assert.Contains(written, f => Path.GetFileName(f) == "report.html");
            Assert.All(written, f => Assert.DoesNotContain(password, File.ReadAllText(f)));
            lock (serverLines) Assert.DoesNotContain(serverLines, line => line.Contains(password, StringComparison.Ordinal));
        }
        finally
        {
            await RabbitMqCtlAsync("delete_user", User);
            Directory.Delete(results, recursive: true);
        }
    }

    /// <summary>Errors quote the address they could not use; with --verbose the stack trace quotes it again.</summary>
    [Theory]
    [InlineData("ping", "--transport", "tcp", "--server", "tcp://user:PASSWORD@127.0.0.1:1/")]
    [InlineData("ping", "--transport", "amqp", "--server", "amqp://user:PASSWORD@127.0.0.1:5672/")]
    [InlineData("ping", "--transport", "nats", "--server", "nats://user:PASSWORD@127.0.0.1:4222/")] // no subject: the error quotes the address
    [InlineData("ping", "--transport", "redis", "--server", "redis://user:PASSWORD@127.0.0.1:6379/")] // no channel: the error quotes the address
    [InlineData("serve", "--transport", "uds", "--address", "uds://user:PASSWORD@/tmp/s.sock")]
    [InlineData("serve", "--transport", "tcp", "--address", "tcp://user:PASS@WORD@256.0.0.1:0")]
    public async Task An_error_about_an_address_masks_its_user_info(params string[] args)
    {
        var (exit, stdout, stderr) = await CliTests.RunWithAsync(null, [.. args, "--verbose"]);

        Assert.NotEqual(0, exit);
        Assert.DoesNotContain("PASS", stdout + stderr);
        Assert.Contains($"://{Secrets.Mask}@", stderr);
    }

    /// <summary>The test's broker user, made afresh: one that a killed test run left (its finally never ran) goes first.</summary>
    private static async Task AddUserAsync(string password)
    {
        await RunRabbitMqCtlAsync("delete_user", User); // usually there is none: its failure says nothing
        await RabbitMqCtlAsync("add_user", User, password);
    }

    private static async Task RabbitMqCtlAsync(params string[] args)
    {
        var (exit, stderr) = await RunRabbitMqCtlAsync(args);
        Assert.True(exit == 0, $"rabbitmqctl {args[0]}: {stderr}");
    }

    private static async Task<(int Exit, string Stderr)> RunRabbitMqCtlAsync(params string[] args)
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
        return (ctl.ExitCode, await stderr);
    }
}
