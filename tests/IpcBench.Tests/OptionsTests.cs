using IpcBench.Cli;
using IpcBench.Cli.Parsing;
using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Harness.Hosting;
using IpcBench.Transports;

namespace IpcBench.Tests;

public class OptionsTests
{
    [Theory]
    [InlineData("0", 0)]
    [InlineData("1", 1)]
    [InlineData("1K", 1024)]
    [InlineData("10kb", 10240)]
    [InlineData("100KB", 102400)]
    [InlineData("1MB", 1048576)]
    [InlineData("7B", 7)]
    public void Sizes_accept_binary_units(string text, int expected) =>
        Assert.Equal(expected, Quantities.ParseSize(text, 1 << 24));

    [Theory]
    [InlineData("-1")]
    [InlineData("1.5KB")]
    [InlineData("lots")]
    [InlineData("17MB")]
    [InlineData("17592186044416M")] // n * 1 MiB overflows a long: must not wrap round to a small size
    public void Sizes_reject_nonsense_and_oversize(string text) =>
        Assert.Null(Quantities.ParseSize(text, 16 << 20));

    [Fact]
    public void Unknown_transport_names_the_known_ones()
    {
        var e = Assert.Throws<UsageException>(() => TransportArgument.Resolve("carrier-pigeon"));
        Assert.Contains("tcp", e.Message);
        Assert.Contains("uds", e.Message);
    }

    [Fact]
    public void Endpoint_options_parse_io_and_durations()
    {
        var tcp = TransportRegistry.Get("tcp");
        var o = EndpointOptions.Parse(new Uri("tcp://127.0.0.1:1/?io=async&timeout=250ms&connect_timeout=2s"), tcp);
        Assert.Equal(IoMode.Async, o.Io);
        Assert.Equal(TimeSpan.FromMilliseconds(250), o.RequestTimeout);
        Assert.Equal(TimeSpan.FromSeconds(2), o.ConnectTimeout);
        Assert.Equal(new EndpointOptions(IoMode.Sync, TimeSpan.FromSeconds(10), TimeSpan.FromSeconds(5)), EndpointOptions.Parse(new Uri("tcp://127.0.0.1:1"), tcp));
    }

    [Theory]
    [InlineData("250", 250)]
    [InlineData("250ms", 250)]
    [InlineData("1.5s", 1500)]
    [InlineData("10m", 600_000)]
    [InlineData("2min", 120_000)]
    [InlineData("1h", 3_600_000)]
    public void Durations_take_milliseconds_seconds_minutes_and_hours(string text, double ms)
    {
        Assert.True(Quantities.TryParseDuration(text, out var d), text);
        Assert.Equal(ms, d.TotalMilliseconds);
    }

    [Theory]
    [InlineData("tcp", "tcp://h:1/?bogus=1", "tcp has no option 'bogus'")]
    [InlineData("tcp", "tcp://h:1/?io=maybe", "io must be sync or async, not 'maybe'")]
    [InlineData("tcp", "tcp://h:1/?timeout=-3s", "timeout must be a positive duration")]
    [InlineData("tcp", "tcp://h:1/?timeout=1e20", "timeout must be a positive duration")]
    [InlineData("grpc", "grpc://h:1/?io=async", "grpc has no option 'io'")]
    [InlineData("mmf", "mmf:///dev/shm/x?wait=nap", "wait must be spin, hybrid or block, not 'nap'")]
    [InlineData("mmf", "mmf:///dev/shm/x?capacity=12", "capacity must be a whole number from 1024 to")]
    [InlineData("wcf", "wcf://h:1/?connection_buffer=x", "connection_buffer must be a whole number from 512 to")]
    public void Options_reject_what_the_transport_does_not_declare(string transport, string address, string message)
    {
        var e = Assert.Throws<ArgumentException>(() => OptionValues.Parse(new Uri(address), TransportRegistry.Get(transport)));
        Assert.Contains(message, e.Message);
    }

    [Fact]
    public void A_case_is_named_by_the_options_that_shape_it()
    {
        var tcp = TransportRegistry.Get("tcp");
        // io is always named; a timeout changes no figure and is left out; a given option is kept.
        Assert.Equal("io=sync", OptionValues.Parse(new Uri("tcp://h:1/?timeout=2s"), tcp).Identity());
        Assert.Equal("io=async&writes=split", OptionValues.Parse(new Uri("tcp://h:1/?writes=split&io=async"), tcp).Identity());
        var mmf = TransportRegistry.Get("mmf");
        Assert.Equal("", OptionValues.Parse(new Uri("mmf:///x"), mmf).Identity());
        Assert.Equal("wait=spin", OptionValues.Parse(new Uri("mmf:///x?wait=spin"), mmf).Identity());
        var amqp = TransportRegistry.Get("amqp");
        Assert.Equal("", OptionValues.Parse(new Uri("amqp://h/?queue=q1"), amqp).Identity()); // the server's queue is an address
    }

    [Fact]
    public void Variants_come_from_the_declared_values_worth_comparing()
    {
        Assert.Equal(["io=sync", "io=async"], TransportRegistry.Get("uds").Variants());
        Assert.Equal(["wait=spin", "wait=hybrid", "wait=block"], TransportRegistry.Get("mmf").Variants());
        Assert.Empty(TransportRegistry.Get("grpc").Variants());
    }

    [Fact]
    public void Every_declared_default_is_a_valid_value()
    {
        foreach (var transport in TransportRegistry.All)
        {
            foreach (var option in OptionValues.Of(transport).Where(o => o.Scope != OptionScope.Address))
            {
                Assert.Null(option.Problem(option.Default));
                Assert.All(option.Compared, value => Assert.Null(option.Problem(value)));
            }
        }
    }

    [Theory]
    [InlineData("none", Placement.None)]
    [InlineData("same-core", Placement.SameCore)]
    [InlineData("CROSS-CORE", Placement.CrossCore)]
    public void Placements_parse(string text, Placement expected) => Assert.Equal(expected, Placements.Parse(text));

    [Fact]
    public void Same_core_pins_both_to_one_cpu_and_cross_core_to_two()
    {
        var (client, server) = Placement.SameCore.Cpus();
        Assert.Equal(client, server);
        Assert.Equal((null, null), Placement.None.Cpus());
        if (CpuAffinity.UsableCpus().Count >= 2)
        {
            var (c, s) = Placement.CrossCore.Cpus();
            Assert.NotEqual(c, s);
        }
    }

    [Fact]
    public void Capabilities_reject_sizes_over_the_maximum()
    {
        var caps = new TransportCapabilities(TransportFeatures.Reliable, 100);
        Assert.Null(caps.RejectSize(100));
        Assert.Contains("101 B exceeds", caps.RejectSize(101));
    }

    [Fact]
    public void Capabilities_refuse_a_load_the_transport_cannot_carry()
    {
        var single = new TransportCapabilities(TransportFeatures.Reliable, 100) { OneClientAtATime = "its host garbles replies" };
        Assert.Null(single.RejectClients(1));
        Assert.Contains("its host garbles replies", single.RejectClients(2));
        Assert.Contains("one request at a time", single.RejectInFlight(2));
        var pipelined = new TransportCapabilities(TransportFeatures.Pipelined, 100);
        Assert.Null(pipelined.RejectClients(16));
        Assert.Null(pipelined.RejectInFlight(8));
    }
}
