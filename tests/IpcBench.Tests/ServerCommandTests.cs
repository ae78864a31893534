using IpcBench.Harness.Hosting;

namespace IpcBench.Tests;

/// <summary>How a server's program is run: a self-contained publish (the container image, where there is no dotnet) by its own executable.</summary>
public class ServerCommandTests
{
    private static readonly string Policy = OperatingSystem.IsWindows() ? "hostpolicy.dll" : OperatingSystem.IsMacOS() ? "libhostpolicy.dylib" : "libhostpolicy.so";
    private static readonly string Apphost = OperatingSystem.IsWindows() ? "ipcbench.exe" : "ipcbench";

    [Theory]
    [InlineData(true)]
    [InlineData(false)]
    public void A_dll_runs_through_its_own_executable_only_when_its_folder_carries_a_runtime(bool selfContained)
    {
        string dir = Directory.CreateTempSubdirectory("ipcbench-test-publish-").FullName;
        try
        {
            foreach (string file in selfContained ? new[] { "ipcbench.dll", Apphost, Policy } : ["ipcbench.dll", Apphost])
            {
                File.WriteAllText(Path.Combine(dir, file), "");
            }
            var command = ServerCommand.ForPath(Path.Combine(dir, "ipcbench.dll"))!;
            if (selfContained)
            {
                Assert.Equal(Path.Combine(dir, Apphost), command.FileName);
                Assert.Null(command.Dll);
            }
            else
            {
                Assert.Equal(Path.Combine(dir, "ipcbench.dll"), command.Dll); // through the dotnet host that runs us
                Assert.NotEqual(Path.Combine(dir, Apphost), command.FileName);
            }
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }
}
