using BenchmarkDotNet.Environments;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Toolchains;
using BenchmarkDotNet.Toolchains.CsProj;
using BenchmarkDotNet.Toolchains.DotNetCli;
using BenchmarkDotNet.Toolchains.NativeAot;
using IpcBench.Harness;

namespace IpcBench.Benchmarks;

/// <summary>
/// How BenchmarkDotNet builds the benchmark processes, the measured clients, for the suite's runtime (IPCBENCH_RUNTIME).
/// jit is its default (dotnet build). r2r publishes the benchmarks with ReadyToRun code, framework-dependent as the JIT
/// build is: BenchmarkDotNet 0.15.8 has no ReadyToRun toolchain, and dotnet build ignores PublishReadyToRun. aot is its
/// NativeAOT toolchain with the SDK's own ILCompiler (its Net10_0 preset adds a package feed only a dotnet.org
/// network reaches).
/// </summary>
public static class SuiteToolchains
{
    private const string Framework = "net10.0";

    /// <summary>A mutator job that builds every job of the run for <paramref name="runtime"/>; null for jit, BenchmarkDotNet's default.</summary>
    public static Job? For(string runtime) => runtime switch
    {
        ClientRuntime.ReadyToRun => Job.Default.WithToolchain(ReadyToRun()).AsMutator(),
        ClientRuntime.NativeAot => Job.Default.WithRuntime(NativeAotRuntime.Net10_0).WithToolchain(NativeAot()).AsMutator(),
        _ => null,
    };

    private static IToolchain ReadyToRun() => new Toolchain(ClientRuntime.ReadyToRun,
        new CsProjGenerator(Framework, cliPath: null!, packagesPath: null!, runtimeFrameworkVersion: null!),
        // -p:SelfContained, not --self-contained: the same arguments go to 'dotnet restore', which has no such switch.
        new DotNetCliPublisher(null, $"-r {System.Runtime.InteropServices.RuntimeInformation.RuntimeIdentifier} -p:PublishReadyToRun=true -p:SelfContained=false"),
        new DotNetCliExecutor(null!));

    private static IToolchain NativeAot() => NativeAotToolchain.CreateBuilder()
        .UseNuGet() // no version: the SDK's bundled ILCompiler, restored from the configured feeds
        .DisplayName(ClientRuntime.NativeAot)
        .TargetFrameworkMoniker(Framework)
        .ToToolchain();
}
