using System.Diagnostics;
using System.Net.Sockets;
using System.Text;
using IpcBench.Contract.Options;
using IpcBench.Harness;
using IpcBench.Transports;

namespace IpcBench.Conformance;

/// <summary>
/// nats against real nats-servers: the one ./test.sh starts (it must run here), and ones of the tests' own, whose
/// subscriptions they can see: a stopped or killed server leaves no subscription behind, and a client that speaks the
/// NATS protocol by hand, sharing no code with NATS.Client.Core, gets its echo.
/// </summary>
public class NatsTests
{
    [Fact]
    public async Task Runs_where_the_tests_run()
    {
        // The broker ./test.sh starts: a loaded machine may take a while to answer, so a probe is retried for 10 s.
        Assert.Null(await ServerWait.UnsupportedReasonAsync(TransportRegistry.Get("nats"), null, TimeSpan.FromSeconds(10), TestContext.Current.CancellationToken));
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task A_server_leaves_no_subscription_behind(bool kill)
    {
        await using var nats = await ScratchNats.StartAsync();
        var server = await TestServer.StartAsync("nats", address: new Uri($"{nats.Url}/"));
        string subject = AddressQuery.Of(server.Process.Address)["subject"];
        Assert.Contains(subject, await nats.SubjectsAsync());

        if (kill)
        {
            Process.GetProcessById(server.Process.ProcessId).Kill(); // no chance to unsubscribe
        }
        await server.DisposeAsync();

        var deadline = DateTime.UtcNow + TimeSpan.FromSeconds(10);
        while ((await nats.SubjectsAsync()).Contains(subject) && DateTime.UtcNow < deadline)
        {
            await Task.Delay(200, TestContext.Current.CancellationToken);
        }
        Assert.DoesNotContain(subject, await nats.SubjectsAsync());
    }

    [Fact]
    public async Task A_client_speaking_the_protocol_by_hand_gets_its_echo_on_the_subject_it_named()
    {
        await using var nats = await ScratchNats.StartAsync();
        string subject = $"ipcbench.test.{Guid.NewGuid():N}";
        await using var server = await TestServer.StartAsync("nats", address: new Uri($"{nats.Url}/?subject={subject}"));

        using var client = new TcpClient();
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(10));
        await client.ConnectAsync("127.0.0.1", nats.Port, timeout.Token);
        var stream = client.GetStream();
        // CONNECT, an inbox of its own, the request with the inbox as its reply subject, then a PING whose PONG
        // comes after the server has taken all of it.
        byte[] hello = Encoding.ASCII.GetBytes(
            $"CONNECT {{\"verbose\":false}}\r\nSUB _INBOX.raw 1\r\nPUB {subject} _INBOX.raw 5\r\nhello\r\nPING\r\n");
        await stream.WriteAsync(hello, timeout.Token);

        var received = new StringBuilder();
        var buffer = new byte[4096];
        while (!received.ToString().Contains("MSG _INBOX.raw 1 5\r\nhello\r\n", StringComparison.Ordinal))
        {
            int n = await stream.ReadAsync(buffer, timeout.Token);
            Assert.True(n > 0, $"the nats-server closed the connection; it sent: {received}");
            received.Append(Encoding.ASCII.GetString(buffer, 0, n));
        }
    }
}
