using System.Diagnostics;
using System.Globalization;
using System.Net;
using System.Net.Sockets;
using IpcBench.Transports;

namespace IpcBench.Tests;

/// <summary>
/// Whether a transport runs here is two questions: <c>UnsupportedReason</c>, what this machine has, read without I/O; and
/// <c>ProbeAsync</c>, whether what lies beyond it (a broker) answers, within the bound it is given.
/// </summary>
public class TransportProbeTests
{
    [Theory]
    [InlineData("nats", "IPCBENCH_NATS_URL", "nats://127.0.0.1:{0}", "no nats-server answers")]
    [InlineData("redis", "IPCBENCH_REDIS_URL", "redis://127.0.0.1:{0}", "no redis-server answers")]
    [InlineData("amqp", "IPCBENCH_RABBITMQ_URI", "amqp://guest:guest@127.0.0.1:{0}/", "no RabbitMQ broker answers")]
    public async Task A_broker_that_does_not_answer_is_told_within_the_probes_bound_and_never_by_the_property(
        string name, string variable, string deadBroker, string why)
    {
        var transport = TransportRegistry.Get(name);
        string? before = Environment.GetEnvironmentVariable(variable);
        // A loopback port nothing listens on (found free, then let go).
        Environment.SetEnvironmentVariable(variable, string.Format(System.Globalization.CultureInfo.InvariantCulture, deadBroker, Conformance.LoopbackPort.Free()));
        try
        {
            var watch = Stopwatch.StartNew();
            Assert.Null(transport.UnsupportedReason);
            Assert.True(watch.Elapsed < TimeSpan.FromMilliseconds(100), $"the property took {watch.Elapsed}: it did I/O");

            watch.Restart();
            string? reason = await transport.ProbeAsync(null, TimeSpan.FromMilliseconds(300), TestContext.Current.CancellationToken);

            Assert.Contains(why, reason);
            Assert.True(watch.Elapsed < TimeSpan.FromSeconds(2), $"the probe took {watch.Elapsed}, its bound 300 ms");
        }
        finally
        {
            Environment.SetEnvironmentVariable(variable, before);
        }
    }

    [Theory]
    [InlineData("nats", "nats://127.0.0.1:{0}/", "no nats-server answers at 127.0.0.1:{0}")]
    [InlineData("redis", "redis://127.0.0.1:{0}/", "no redis-server answers at 127.0.0.1:{0}")]
    [InlineData("amqp", "amqp://127.0.0.1:{0}/", "no RabbitMQ broker answers at 127.0.0.1:{0}")]
    public async Task A_probe_given_an_address_asks_the_broker_it_names_not_the_configured_one(string name, string address, string dead)
    {
        // ping --server names the broker the run will use; the configured one may be down, or elsewhere, or answer
        // while the named one does not.
        var transport = TransportRegistry.Get(name);
        int deadPort = Conformance.LoopbackPort.Free();
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        int livePort = ((IPEndPoint)listener.LocalEndpoint).Port;

        string? deadReason = await transport.ProbeAsync(new Uri(Format(address, deadPort)), TimeSpan.FromMilliseconds(300), TestContext.Current.CancellationToken);
        string? liveReason = await transport.ProbeAsync(new Uri(Format(address, livePort)), TimeSpan.FromSeconds(5), TestContext.Current.CancellationToken);

        Assert.Contains(Format(dead, deadPort), deadReason);
        Assert.Null(liveReason);
    }

    private static string Format(string format, int port) => string.Format(CultureInfo.InvariantCulture, format, port);
}
