using IpcBench.Cli;
using IpcBench.Core;
using IpcBench.Core.Hosting;

namespace IpcBench.Tests;

public class OptionsTests
{
    private static Arguments Parse(params string[] args) =>
        Arguments.Parse(args, ["transport", "size", "count"], ["verbose"]);

    [Fact]
    public void Parses_values_flags_and_inline_values()
    {
        var a = Parse("--transport", "tcp", "--size=1KB", "--verbose");
        Assert.Equal("tcp", a.Get("transport"));
        Assert.Equal(1024, a.GetSize("size", 1, 1 << 24));
        Assert.True(a.Has("verbose"));
        Assert.Equal(7, a.GetInt("count", 7, 1));
    }

    [Theory]
    [InlineData("unknown option --bogus", "--bogus", "1")]
    [InlineData("--transport needs a value", "--transport")]
    [InlineData("--transport is given twice", "--transport", "a", "--transport", "b")]
    [InlineData("unexpected argument 'tcp'", "tcp")]
    [InlineData("--verbose takes no value", "--verbose=yes")]
    public void Rejects_malformed_command_lines(string message, params string[] args)
    {
        var e = Assert.Throws<UsageException>(() => Parse(args));
        Assert.Equal(message, e.Message);
    }

    [Theory]
    [InlineData("0", 0)]
    [InlineData("1", 1)]
    [InlineData("1K", 1024)]
    [InlineData("10kb", 10240)]
    [InlineData("100KB", 102400)]
    [InlineData("1MB", 1048576)]
    [InlineData("7B", 7)]
    public void Sizes_accept_binary_units(string text, int expected) =>
        Assert.Equal(expected, Arguments.ParseSize(text, 1 << 24));

    [Theory]
    [InlineData("-1")]
    [InlineData("1.5KB")]
    [InlineData("lots")]
    [InlineData("17MB")]
    public void Sizes_reject_nonsense_and_oversize(string text) =>
        Assert.Null(Arguments.ParseSize(text, 16 << 20));

    [Theory]
    [InlineData("0")]
    [InlineData("x")]
    [InlineData("-5")]
    public void Counts_must_be_positive_whole_numbers(string text)
    {
        var e = Assert.Throws<UsageException>(() => Parse("--count", text).GetInt("count", 1, 1));
        Assert.Contains("--count must be a whole number", e.Message);
    }

    [Fact]
    public void Unknown_transport_names_the_known_ones()
    {
        var e = Assert.Throws<UsageException>(() => TransportRegistry.Get("carrier-pigeon"));
        Assert.Contains("tcp", e.Message);
        Assert.Contains("uds", e.Message);
    }

    [Fact]
    public void Endpoint_options_parse_io_and_durations()
    {
        var o = EndpointOptions.Parse(new Uri("tcp://127.0.0.1:1/?io=async&timeout=250ms&connect_timeout=2s"));
        Assert.Equal(IoMode.Async, o.Io);
        Assert.Equal(TimeSpan.FromMilliseconds(250), o.RequestTimeout);
        Assert.Equal(TimeSpan.FromSeconds(2), o.ConnectTimeout);
        Assert.Equal(EndpointOptions.Default, EndpointOptions.Parse(new Uri("tcp://127.0.0.1:1")));
    }

    [Theory]
    [InlineData("tcp://h:1/?bogus=1", "unknown option 'bogus'")]
    [InlineData("tcp://h:1/?io=maybe", "io must be 'sync' or 'async'")]
    [InlineData("tcp://h:1/?timeout=-3s", "timeout must be a positive duration")]
    public void Endpoint_options_reject_what_they_do_not_know(string address, string message)
    {
        var e = Assert.Throws<ArgumentException>(() => EndpointOptions.Parse(new Uri(address)));
        Assert.Contains(message, e.Message);
    }

    [Fact]
    public void With_sets_one_query_key_and_keeps_the_rest()
    {
        var uri = EndpointOptions.With(new Uri("tcp://127.0.0.1:5/?timeout=1s"), "io", "async");
        var query = EndpointOptions.Query(uri);
        Assert.Equal("async", query["io"]);
        Assert.Equal("1s", query["timeout"]);
        Assert.Equal(5, uri.Port);
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
        Assert.Equal("reliable; max 100 B", caps.ToString());
    }
}
