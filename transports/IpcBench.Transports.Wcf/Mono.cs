using System.Diagnostics;

namespace IpcBench.Transports.Wcf;

/// <summary>Where Mono is, on the systems where the .NET Framework host runs under it.</summary>
internal static class Mono
{
    public const string Command = "mono";

    /// <summary>
    /// Runs <paramref name="program"/> under Mono without its shared area, the /dev/shm/mono.PID file of
    /// performance counters that a killed Mono leaves behind.
    /// </summary>
    public static ProcessStartInfo StartInfo(string program) => new(Command)
    {
        ArgumentList = { program },
        Environment = { ["MONO_DISABLE_SHARED_AREA"] = "1" },
    };

    /// <summary>Null when <c>mono</c> is on PATH with its WCF assembly beside it; otherwise what is missing and <paramref name="install"/>.</summary>
    public static string? Missing(string install)
    {
        if (Kit.Processes.Executable.Find(Command) is not { } mono)
        {
            return $"Mono is not installed ({install})";
        }
        // bin/mono -> lib/mono/4.5/System.ServiceModel.dll under the same prefix
        string prefix = Path.GetDirectoryName(Path.GetDirectoryName(new FileInfo(mono).ResolveLinkTarget(returnFinalTarget: true)?.FullName ?? mono))!;
        return File.Exists(Path.Combine(prefix, "lib", "mono", "4.5", "System.ServiceModel.dll"))
            ? null
            : $"Mono has no System.ServiceModel ({install})";
    }
}
