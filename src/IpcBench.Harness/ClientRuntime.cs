using System.Reflection;
using System.Runtime.CompilerServices;
using IpcBench.Contract;
using IpcBench.Harness.Hosting;
using IpcBench.Kit.Files;

namespace IpcBench.Harness;

/// <summary>
/// How the client's code runs: a JIT build (IL compiled as it runs, tiered), a ReadyToRun build (IL shipped with
/// precompiled code, the JIT still there for what it lacks) or a NativeAOT build (all native, no JIT, no runtime code
/// generation). <c>ping --runtime</c> runs its client from the build of the runtime asked for, which
/// <c>benchmarks/runtimes.sh</c> publishes into <c>artifacts/runtimes/NAME/</c>; the server is always the build ping
/// itself runs from, so that only the client's runtime differs between cases.
/// </summary>
public static class ClientRuntime
{
    public const string Jit = "jit";
    public const string ReadyToRun = "r2r";
    public const string NativeAot = "aot";

    /// <summary>Where the builds are, instead of artifacts/runtimes at the repository root.</summary>
    public const string BuildsVariable = "IPCBENCH_RUNTIMES";

    public static IReadOnlyList<string> Names { get; } = [Jit, ReadyToRun, NativeAot];

    /// <summary>This process's runtime: NativeAOT when it cannot generate code, else what its build recorded (r2r), else JIT.</summary>
    public static string Current { get; } =
        !RuntimeFeature.IsDynamicCodeSupported ? NativeAot
        : Assembly.GetEntryAssembly()?.GetCustomAttributes<AssemblyMetadataAttribute>().FirstOrDefault(a => a.Key == "IpcBench.Runtime")?.Value is ReadyToRun
            ? ReadyToRun
            : Jit;

    public static string Describe(string runtime) => runtime switch
    {
        ReadyToRun => "ReadyToRun (precompiled IL, JIT for the rest)",
        NativeAot => "NativeAOT (native code, no JIT)",
        _ => "JIT (tiered, with dynamic PGO)",
    };

    /// <summary>How to run the ipcbench of <paramref name="runtime"/>'s build, or null when there is none (<see cref="Missing"/> says what to do).</summary>
    public static ServerCommand? Build(string runtime)
    {
        string folder = Path.Combine(BuildsFolder(), runtime);
        return ServerCommand.ForPath(Path.Combine(folder, "ipcbench.dll")) ?? ServerCommand.ForPath(Path.Combine(folder, "ipcbench"));
    }

    public static string Missing(string runtime) =>
        $"no {runtime} build of ipcbench in {Path.Combine(BuildsFolder(), runtime)}: publish it with benchmarks/runtimes.sh " +
        $"(or set {BuildsVariable} to the folder that holds {string.Join(", ", Names)})";

    /// <summary>How to run this very ipcbench again (the start scenario's client processes).</summary>
    public static ServerCommand Self()
    {
        string? process = Environment.ProcessPath;
        bool dotnetHost = process is null || Path.GetFileNameWithoutExtension(process) == "dotnet";
        return (dotnetHost ? ServerCommand.ForPath(Path.Combine(AppContext.BaseDirectory, "ipcbench.dll")) : ServerCommand.ForPath(process!))
            ?? throw new FileNotFoundException("cannot tell which ipcbench this is, to start it again");
    }

    /// <summary>Why <paramref name="transport"/>'s client cannot run in this process's runtime, or null when it can.</summary>
    public static string? Refuses(ITransport transport) =>
        Current == NativeAot && transport.NativeAotUnsupportedReason is { } reason ? $"not in a NativeAOT build: {reason}" : null;

    private static string BuildsFolder()
    {
        if (Environment.GetEnvironmentVariable(BuildsVariable) is { Length: > 0 } configured)
        {
            return Path.GetFullPath(configured);
        }
        return RepositoryRoot.Find(Directory.GetCurrentDirectory(), AppContext.BaseDirectory) is { } root
            ? Path.Combine(root, "artifacts", "runtimes")
            : Path.GetFullPath(Path.Combine("artifacts", "runtimes"));
    }
}
