using System.Diagnostics;

namespace IpcBench.Harness.Hosting;

/// <summary>
/// How to run the <c>ipcbench</c> executable that hosts servers: <c>IPCBENCH_EXE</c> if set (a native
/// executable or a .dll run through dotnet), else the <c>ipcbench</c> beside this assembly (a self-contained publish's own
/// executable, which needs no dotnet; else its dll through the dotnet host that runs us), else the one in
/// <c>ipcbench/</c> beside it (where the suite and the tests get a copy: src/IpcBench.Cli/IpcbenchProgram.targets).
/// </summary>
public sealed record ServerCommand(string FileName, string? Dll)
{
    public const string EnvironmentVariable = "IPCBENCH_EXE";

    public static ServerCommand Resolve()
    {
        string? configured = Environment.GetEnvironmentVariable(EnvironmentVariable);
        if (!string.IsNullOrEmpty(configured))
        {
            return ForPath(configured) ?? throw new FileNotFoundException($"{EnvironmentVariable} names {configured}, which does not exist");
        }
        string dir = AppContext.BaseDirectory;
        return ForPath(Path.Combine(dir, "ipcbench.dll")) ?? ForPath(Path.Combine(dir, "ipcbench", "ipcbench.dll"))
            ?? throw new FileNotFoundException($"ipcbench.dll is neither in {dir} nor in ipcbench/ there; set {EnvironmentVariable} to the ipcbench executable");
    }

    /// <summary>The value to export in <see cref="EnvironmentVariable"/> so that child processes find the same executable.</summary>
    public string ExecutablePath => Dll ?? FileName;

    /// <summary>How to run the ipcbench at <paramref name="path"/> (an executable or its dll), or null when there is none.</summary>
    public static ServerCommand? ForPath(string path)
    {
        path = Path.GetFullPath(path);
        if (!File.Exists(path))
        {
            return null;
        }
        if (path.EndsWith(".dll", StringComparison.OrdinalIgnoreCase) && SelfContainedHost(path) is { } apphost)
        {
            // A self-contained publish (the container image): it carries its own runtime and there may be no dotnet.
            return new ServerCommand(apphost, null);
        }
        if (path.EndsWith(".dll", StringComparison.OrdinalIgnoreCase))
        {
            // Run the dll with the same dotnet host that runs us, so that no PATH lookup can pick another.
            string host = Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") is { Length: > 0 } h ? h : DotnetHost();
            return new ServerCommand(host, path);
        }
        return new ServerCommand(path, null);
    }

    /// <summary>The executable beside <paramref name="dll"/> when its folder holds a runtime of its own (the host policy library), else null.</summary>
    private static string? SelfContainedHost(string dll)
    {
        string dir = Path.GetDirectoryName(dll)!;
        string policy = OperatingSystem.IsWindows() ? "hostpolicy.dll" : OperatingSystem.IsMacOS() ? "libhostpolicy.dylib" : "libhostpolicy.so";
        string apphost = Path.ChangeExtension(dll, OperatingSystem.IsWindows() ? ".exe" : null);
        return File.Exists(Path.Combine(dir, policy)) && File.Exists(apphost) ? apphost : null;
    }

    private static string DotnetHost()
    {
        string? self = Environment.ProcessPath;
        string name = OperatingSystem.IsWindows() ? "dotnet.exe" : "dotnet";
        return self is not null && Path.GetFileName(self) == name ? self : name;
    }

    /// <summary>The command with <paramref name="args"/> (ipcbench's own: "serve", "ping", ...).</summary>
    public ProcessStartInfo StartInfo(params IEnumerable<string> args) => new(FileName, Dll is null ? args : [Dll, .. args]);
}
