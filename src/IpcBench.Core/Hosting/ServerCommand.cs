using System.Diagnostics;

namespace IpcBench.Core.Hosting;

/// <summary>
/// How to run the <c>ipcbench</c> executable that hosts servers: <c>IPCBENCH_EXE</c> if set (a native
/// executable or a .dll run through dotnet), else the <c>ipcbench</c> beside this assembly, else the one in
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
            return FromPath(configured) ?? throw new FileNotFoundException($"{EnvironmentVariable} names {configured}, which does not exist");
        }
        string dir = AppContext.BaseDirectory;
        return FromPath(Path.Combine(dir, "ipcbench.dll")) ?? FromPath(Path.Combine(dir, "ipcbench", "ipcbench.dll"))
            ?? throw new FileNotFoundException($"ipcbench.dll is neither in {dir} nor in ipcbench/ there; set {EnvironmentVariable} to the ipcbench executable");
    }

    /// <summary>The value to export in <see cref="EnvironmentVariable"/> so that child processes find the same executable.</summary>
    public string ExecutablePath => Dll ?? FileName;

    private static ServerCommand? FromPath(string path)
    {
        path = Path.GetFullPath(path);
        if (!File.Exists(path))
        {
            return null;
        }
        if (path.EndsWith(".dll", StringComparison.OrdinalIgnoreCase))
        {
            // Run the dll with the same dotnet host that runs us, so that no PATH lookup can pick another.
            string host = Environment.GetEnvironmentVariable("DOTNET_HOST_PATH") is { Length: > 0 } h ? h : DotnetHost();
            return new ServerCommand(host, path);
        }
        return new ServerCommand(path, null);
    }

    private static string DotnetHost()
    {
        string? self = Environment.ProcessPath;
        string name = OperatingSystem.IsWindows() ? "dotnet.exe" : "dotnet";
        return self is not null && Path.GetFileName(self) == name ? self : name;
    }

    public ProcessStartInfo StartInfo()
    {
        var info = new ProcessStartInfo(FileName);
        if (Dll is not null)
        {
            info.ArgumentList.Add(Dll);
        }
        return info;
    }
}
