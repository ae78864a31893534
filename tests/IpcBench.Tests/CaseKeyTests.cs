using IpcBench.Harness.Hosting;
using IpcBench.Harness.Measurement;
using IpcBench.Reporting;

namespace IpcBench.Tests;

/// <summary>The case key: one spelling in results.json, read back to the same key, and the kind the reports sort cases by.</summary>
public class CaseKeyTests
{
    private static CaseKey Loop(LoopOptions loop, string scenario = CaseKey.Steady, Isolation isolation = Isolation.None, int processes = 1,
        string runtime = "jit") =>
        CaseKey.ForLoop("tcp", "wait=spin&io=sync", loop, scenario, "same-core", isolation, processes, runtime);

    [Fact]
    public void A_steady_echo_names_only_the_transports_options_as_every_earlier_run_did()
    {
        var key = Loop(new LoopOptions(1024, 100, 10));
        Assert.Equal("io=sync&wait=spin", key.Options);
        Assert.Equal(CaseKind.Steady, key.Kind);
    }

    [Fact]
    public void Every_field_that_sets_a_case_apart_is_spelt_and_read_back_to_an_equal_key()
    {
        var key = Loop(new LoopOptions(64, 100, 10) { Clients = 8, InFlight = 2, Rate = 2500.5, ReplySize = 4096 },
            isolation: Isolation.Netns, processes: 2, runtime: "aot");
        Assert.Equal("client_processes=2&clients=8&in_flight=2&io=sync&isolation=netns&rate=2500.5&reply_size=4096&runtime=aot&wait=spin", key.Options);
        Assert.Equal(key, CaseKey.Parse("tcp", key.Options, 64, "same-core"));
        Assert.Equal(CaseKind.UnderLoad, key.Kind);
    }

    [Theory]
    [InlineData(CaseKey.Connect, "io=sync&scenario=connect&wait=spin", CaseKind.ColdStart)]
    [InlineData(CaseKey.Start, "io=sync&scenario=start&wait=spin", CaseKind.ColdStart)]
    [InlineData(CaseKey.Throughput, "io=sync&scenario=throughput&wait=spin", CaseKind.UnderLoad)]
    public void A_scenario_other_than_steady_is_named_and_sorts_the_case(string scenario, string options, CaseKind kind)
    {
        var key = Loop(new LoopOptions(1, 100, 10), scenario);
        Assert.Equal((options, kind), (key.Options, key.Kind));
        Assert.Equal(key, CaseKey.Parse("tcp", options, 1, "same-core"));
    }

    [Fact]
    public void A_jit_client_is_not_named_so_that_every_earlier_run_keeps_its_cases()
    {
        Assert.Null(Loop(new LoopOptions(1, 100, 10)).Runtime);
        Assert.Null(CaseKey.Parse("tcp", "io=sync&runtime=jit", 1, "same-core").Runtime);
    }

    [Fact]
    public void A_reply_of_the_requests_size_is_an_echo_and_not_named()
    {
        Assert.Null(Loop(new LoopOptions(512, 100, 10) { ReplySize = 512 }).ReplySize);
    }

    [Fact]
    public void Options_in_another_order_or_case_read_as_the_same_key()
    {
        Assert.Equal(CaseKey.Parse("uds", "io=async&clients=4", 1, "none"), CaseKey.Parse("uds", "?CLIENTS=4&io=async", 1, "none"));
    }

    [Theory]
    [InlineData("clients=many&rate=-")]
    [InlineData("clients=1&in_flight=-3")]
    [InlineData("rate=0&reply_size=1")]
    [InlineData("scenario=steady&isolation=")]
    public void A_value_the_key_would_not_spell_stays_an_option_so_that_no_two_cases_become_one(string options)
    {
        var odd = CaseKey.Parse("tcp", options, 1, "none");
        Assert.Equal((1, 1, 0.0, (int?)null, CaseKey.Steady, (string?)null), (odd.Clients, odd.InFlight, odd.Rate, odd.ReplySize, odd.Scenario, odd.Isolation));
        Assert.Equal(CaseOptions.Normalize(options), odd.Options);
        Assert.NotEqual(CaseKey.Parse("tcp", "", 1, "none"), odd);
    }
}
