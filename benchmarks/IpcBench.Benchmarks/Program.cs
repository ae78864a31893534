using System.Globalization;
using BenchmarkDotNet.Running;
using IpcBench.Benchmarks;
using IpcBench.Core.Hosting;

// The host process: BenchmarkDotNet starts one child process per case, and each child starts its own
// 'ipcbench serve'. Settings travel to the children as environment variables, which they inherit.
var stamp = DateTime.UtcNow.ToString("yyyyMMdd-HHmmss", CultureInfo.InvariantCulture);
string artifacts = Path.Combine(SuiteSettings.ResultsRoot(), $"{stamp}-bench");
Environment.SetEnvironmentVariable(ServerCommand.EnvironmentVariable, ServerCommand.Resolve().ExecutablePath);
Environment.SetEnvironmentVariable(SuiteSettings.LatencyDirVariable, Path.Combine(artifacts, "latency"));

Console.WriteLine($"IpcBench suite: placement {SuiteSettings.Placement.Describe()}, io {SuiteSettings.Io}, reports in {artifacts}");
foreach (string entry in SuiteSettings.RequestedTransports)
{
    var t = SuiteSettings.Resolve(entry);
    if (t.UnsupportedReason is { } why)
    {
        Console.WriteLine($"  skipped {entry}: {why}");
        continue;
    }
    foreach (int size in SuiteSettings.Sizes)
    {
        if (t.Capabilities.RejectSize(size) is { } tooLarge)
        {
            Console.WriteLine($"  skipped {entry} at {size} B: {tooLarge}");
        }
    }
}

var summaries = BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly).Run(args, SuiteConfig.Create(artifacts, withDefaultJob: !SuiteConfig.NamesJob(args)));
bool failed = summaries.Any(s => s.HasCriticalValidationErrors || s.Reports.Any(r => !r.Success));
return failed ? 1 : 0;
