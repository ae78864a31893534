using System.Text.Json;
using IpcBench.Harness.Hosting;
using IpcBench.Kit.Processes;

namespace IpcBench.Conformance;

/// <summary>
/// What <c>ipcbench list --json</c> says of one transport in a process with these environment variables: how a test
/// sees a probe's verdict under a broker configuration of its own without changing its own process's environment,
/// which the tests running beside it share.
/// </summary>
public static class Listing
{
    /// <summary>The transport's not_here: null when it runs.</summary>
    public static async Task<string?> NotHereAsync(string transport, IReadOnlyDictionary<string, string> environment)
    {
        var info = ServerCommand.Resolve().StartInfo();
        info.ArgumentList.Add("list");
        info.ArgumentList.Add("--json");
        foreach (var (name, value) in environment)
        {
            info.Environment[name] = value;
        }
        var output = await BoundedChild.RunAsync(info, "ipcbench list --json", TimeSpan.FromSeconds(60), TestContext.Current.CancellationToken);
        Assert.True(output.ExitCode == 0, output.Stderr);
        using var listing = JsonDocument.Parse(output.Stdout);
        var row = listing.RootElement.EnumerateArray().Single(r => r.GetProperty("name").GetString() == transport);
        string? notHere = row.GetProperty("not_here").GetString();
        Assert.Equal(notHere is null, row.GetProperty("runs").GetBoolean());
        return notHere;
    }
}
