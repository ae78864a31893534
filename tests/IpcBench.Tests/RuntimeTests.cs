namespace IpcBench.Tests;

/// <summary>
/// ping's client runtimes and its start scenario, on this build: a runtime without a build, and a transport a NativeAOT
/// build cannot run, are each "not here" (exit 3) with what to do; a start-scenario run times new client processes.
/// The published builds themselves are benchmarks/runtimes.sh's to make and measure.
/// </summary>
public class RuntimeTests
{
    [Fact]
    public async Task A_runtime_without_a_build_is_not_here_with_the_command_that_publishes_it()
    {
        string empty = Directory.CreateTempSubdirectory("ipcbench-test-runtimes-").FullName;
        try
        {
            var (exit, _, stderr) = await CliTests.RunWithAsync(new Dictionary<string, string> { ["IPCBENCH_RUNTIMES"] = empty },
                "ping", "--transport", "tcp", "--runtime", "r2r", "--count", "10", "--no-results");
            Assert.Equal(3, exit);
            Assert.Contains($"no r2r build of ipcbench in {Path.Combine(empty, "r2r")}", stderr);
            Assert.Contains("benchmarks/runtimes.sh", stderr);
        }
        finally
        {
            Directory.Delete(empty, recursive: true);
        }
    }

    [Theory]
    [InlineData("jsonrpc", "StreamJsonRpc")]
    [InlineData("signalr-json", "JSON hub protocol")]
    [InlineData("grpc-codefirst", "protobuf-net.Grpc")]
    public async Task A_transport_a_native_aot_client_cannot_run_is_refused_with_the_reason(string transport, string reason)
    {
        var (exit, _, stderr) = await CliTests.RunWithAsync(null, "ping", "--transport", transport, "--runtime", "aot", "--no-results");
        Assert.Equal(3, exit);
        Assert.Contains($"{transport} does not run in a NativeAOT build: ", stderr);
        Assert.Contains(reason, stderr);
    }

    [Fact]
    public async Task The_start_scenario_times_a_new_client_process_per_request()
    {
        string json = Path.Combine(Directory.CreateTempSubdirectory("ipcbench-test-start-").FullName, "run.json");
        try
        {
            var (exit, stdout, stderr) = await CliTests.RunWithAsync(null,
                "ping", "--transport", "uds", "--scenario", "start", "--count", "3", "--warmup", "1", "--no-results", "--json", json);
            Assert.True(exit == 0, stderr);
            Assert.Contains("x 3 ", stdout);
            string results = await File.ReadAllTextAsync(json, TestContext.Current.CancellationToken);
            Assert.Contains("scenario=start", results);
            Assert.Contains("JIT (tiered, with dynamic PGO)", results);
            // A process start is milliseconds at the least: anything less timed no process.
            var p50 = System.Text.Json.JsonDocument.Parse(results).RootElement.GetProperty("cases")[0].GetProperty("latency_us").GetProperty("p50").GetDouble();
            Assert.True(p50 > 1_000, $"p50 {p50} us");
        }
        finally
        {
            Directory.Delete(Path.GetDirectoryName(json)!, recursive: true);
        }
    }
}
