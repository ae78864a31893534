using System.Net;
using System.Net.Sockets;
using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Harness.Measurement;
using IpcBench.Transports.Sockets;

namespace IpcBench.Conformance;

/// <summary>UDP may lose messages: a lost reply must be a counted timeout, never a hang or a wrong match.</summary>
public class UdpLossTests
{
    [Theory]
    [InlineData(IoMode.Sync)]
    [InlineData(IoMode.Async)]
    public async Task Lost_replies_are_counted_timeouts_and_late_ones_are_not_taken_for_the_next(IoMode io)
    {
        using var lossy = new Socket(AddressFamily.InterNetwork, SocketType.Dgram, ProtocolType.Udp);
        lossy.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        using var stop = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        var server = Task.Run(() => ServeLossily(lossy, stop.Token), TestContext.Current.CancellationToken);

        var address = new Uri($"udp://127.0.0.1:{((IPEndPoint)lossy.LocalEndPoint!).Port}/?timeout=500ms&io={io.ToString().ToLowerInvariant()}");
        await using var connection = await new UdpTransport().ConnectAsync(address, TestContext.Current.CancellationToken);
        var result = await LoadLoop.RunAsync([connection], new LoopOptions(Size: 32, Count: 20, Warmup: 0, TolerateLoss: true), ct: TestContext.Current.CancellationToken);

        // Every other reply was dropped, and each of those is an error; every other request got its
        // own reply, checked and timed (a late duplicate taken for it would fail the content check).
        // On a loaded machine a slow answer may also time out, so "at least" the dropped ones.
        Assert.InRange(result.Errors, 10, 15);
        Assert.Equal(20, result.Errors + result.Latency.Count);
        await stop.CancelAsync();
        await server.WaitAsync(TimeSpan.FromSeconds(5), TestContext.Current.CancellationToken).ContinueWith(_ => { }, TestContext.Current.CancellationToken);
    }

    [Fact]
    public async Task Without_loss_tolerance_a_lost_reply_is_a_timeout_error()
    {
        using var silent = new Socket(AddressFamily.InterNetwork, SocketType.Dgram, ProtocolType.Udp);
        silent.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        var address = new Uri($"udp://127.0.0.1:{((IPEndPoint)silent.LocalEndPoint!).Port}/?connect_timeout=300ms");

        var e = await Assert.ThrowsAsync<TransportTimeoutException>(async () => await new UdpTransport().ConnectAsync(address, TestContext.Current.CancellationToken));
        Assert.Contains("no answer within 300 ms", e.Message);
    }

    /// <summary>A socket takes its timeout in whole milliseconds, and 0 as none: a timeout under 1 ms must still time out.</summary>
    [Theory]
    [InlineData(IoMode.Sync)]
    [InlineData(IoMode.Async)]
    public async Task A_timeout_under_a_millisecond_times_out_and_does_not_wait_forever(IoMode io)
    {
        using var silent = new Socket(AddressFamily.InterNetwork, SocketType.Dgram, ProtocolType.Udp);
        silent.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        var address = new Uri($"udp://127.0.0.1:{((IPEndPoint)silent.LocalEndPoint!).Port}/?connect_timeout=0.5ms&io={io.ToString().ToLowerInvariant()}");

        var connect = Task.Run(async () => await new UdpTransport().ConnectAsync(address, TestContext.Current.CancellationToken));
        Assert.True(await Task.WhenAny(connect, Task.Delay(TimeSpan.FromSeconds(10), TestContext.Current.CancellationToken)) == connect, "still waiting after 10 s");
        await Assert.ThrowsAsync<TransportTimeoutException>(() => connect);
    }

    /// <summary>Echoes the connect probe, then drops every odd request and answers every even one twice
    /// (the duplicate plays a late reply that the client must skip).</summary>
    private static async Task ServeLossily(Socket socket, CancellationToken ct)
    {
        var buffer = new byte[2048];
        var from = new SocketAddress(socket.AddressFamily);
        for (int n = 0; !ct.IsCancellationRequested; n++)
        {
            int length = await socket.ReceiveFromAsync(buffer, SocketFlags.None, from, ct);
            if (n > 0 && n % 2 == 1)
            {
                continue;
            }
            await socket.SendToAsync(buffer.AsMemory(0, length), SocketFlags.None, from, ct);
            if (n > 0)
            {
                await socket.SendToAsync(buffer.AsMemory(0, length), SocketFlags.None, from, ct);
            }
        }
    }
}
