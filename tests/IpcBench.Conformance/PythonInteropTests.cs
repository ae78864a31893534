using System.Diagnostics;
using IpcBench.Kit.Processes;

namespace IpcBench.Conformance;

/// <summary>
/// IpcBench's gRPC and ZeroMQ servers called from another language: Python's grpcio (gRPC's C core) with
/// stubs generated from Protos/echo.proto, and pyzmq (libzmq) as a plain REQ client, every payload from
/// 0 B to 100 KB checked (Interop/echo_client.py). Debian's python3 modules: test.sh installs them.
/// </summary>
public class PythonInteropTests
{
    /// <summary>Debian's own python3: its python3-grpcio, python3-grpc-tools and python3-zmq are installed for it alone.</summary>
    private const string Python = "/usr/bin/python3";
    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(60);
    private static readonly string Interop = Path.Combine(AppContext.BaseDirectory, "Interop");

    [Theory]
    [InlineData("grpc")]
    [InlineData("grpc-uds")]
    [InlineData("grpc-stream")]
    public async Task A_python_grpc_client_generated_from_echo_proto_gets_its_payloads_back(string transport)
    {
        await using var server = await TestServer.StartAsync(transport);
        var address = server.Process.Address;
        string target = transport == "grpc-uds" ? "unix:" + Uri.UnescapeDataString(address.AbsolutePath) : address.Authority;
        string stubs = Directory.CreateTempSubdirectory("ipcbench-stubs-").FullName;
        try
        {
            await RunAsync("-m", "grpc_tools.protoc", $"-I{Interop}", $"--python_out={stubs}", $"--grpc_python_out={stubs}", Path.Combine(Interop, "echo.proto"));
            await RunAsync(Path.Combine(Interop, "echo_client.py"), transport == "grpc-stream" ? "grpc-stream" : "grpc", target, stubs);
        }
        finally
        {
            Directory.Delete(stubs, recursive: true);
        }
    }

    [Theory]
    [InlineData("zmq")]
    [InlineData("zmq-libzmq")]
    public async Task A_python_zeromq_req_client_gets_its_payloads_back(string transport)
    {
        await using var server = await TestServer.StartAsync(transport);
        await RunAsync(Path.Combine(Interop, "echo_client.py"), "zmq", $"tcp://127.0.0.1:{server.Process.Address.Port}");
    }

    /// <summary>Runs Debian's python3 with <paramref name="args"/>; fails with its output unless it exits 0 within the timeout.</summary>
    private static async Task RunAsync(params string[] args)
    {
        if (!File.Exists(Python))
        {
            Assert.Fail($"{Python} is missing: run ./test.sh, or apt-get install python3-grpcio python3-grpc-tools python3-zmq");
        }
        var start = new ProcessStartInfo(Python) { RedirectStandardOutput = true, RedirectStandardError = true };
        foreach (string arg in args)
        {
            start.ArgumentList.Add(arg);
        }
        using var process = Process.Start(start)!;
        var stdout = process.StandardOutput.ReadToEndAsync();
        var stderr = process.StandardError.ReadToEndAsync();
        using var timeout = new CancellationTokenSource(Timeout);
        try
        {
            await process.WaitForExitAsync(timeout.Token);
        }
        catch (OperationCanceledException)
        {
            ProcessTree.Kill(process);
            Assert.Fail($"python3 {string.Join(' ', args)} did not finish within {Timeout.TotalSeconds:0} s");
        }
        Assert.True(process.ExitCode == 0,
            $"python3 {string.Join(' ', args)} exited {process.ExitCode}:\n{await stdout}{await stderr}\n" +
            "(missing modules? apt-get install python3-grpcio python3-grpc-tools python3-zmq)");
    }
}
