using BenchmarkDotNet.Running;
using IpcBench.Benchmarks;
using IpcBench.Harness;
using IpcBench.Harness.Hosting;
using IpcBench.Reporting;
using IpcBench.Reporting.Collecting;
using IpcBench.Reporting.Writers;

// The host process: BenchmarkDotNet starts one child process per case, and each child starts its own
// 'ipcbench serve'. Settings travel to the children as environment variables, which they inherit.
Secrets.RedactConsole();
var started = DateTimeOffset.UtcNow;
started = new DateTimeOffset(started.Ticks - started.Ticks % TimeSpan.TicksPerSecond, TimeSpan.Zero);
string id = RunFolder.Id(started, SuiteResults.Kind);
string artifacts = RunFolder.Create(RunFolder.Root(), id);
Environment.SetEnvironmentVariable(ServerCommand.EnvironmentVariable, ServerCommand.Resolve().ExecutablePath);
Environment.SetEnvironmentVariable(SuiteSettings.LatencyDirVariable, Path.Combine(artifacts, "latency"));

string options = string.Join(" ", SuiteSettings.OptionVariables.Where(v => v.Value is not null).Select(v => $"{v.Variable}={v.Value}"));
Console.WriteLine($"IpcBench suite: placement {SuiteSettings.Placement.Describe()}, {(options.Length > 0 ? options : "each transport's default options")}, reports in {artifacts}");
foreach (var skipped in SuiteResults.Skipped())
{
    string entry = CaseOptions.Label(skipped.Transport, skipped.Options, "");
    Console.WriteLine(skipped.Size is int size ? $"  skipped {entry} at {size} B: {skipped.Reason}" : $"  skipped {entry}: {skipped.Reason}");
}

var summaries = BenchmarkSwitcher.FromAssembly(typeof(SuiteConfig).Assembly).Run(args, SuiteConfig.Create(artifacts, args));
if (!summaries.Any(s => s.Reports.Any()))
{
    // Nothing ran (--list, --help, a filter that matches nothing): no run to keep.
    RunFolder.DiscardEmpty(artifacts);
}
else
{
    var run = SuiteResults.Build(id, started, args, summaries);
    ReportWriter.WriteAll(artifacts, run);
    Console.WriteLine();
    Console.Write(SummaryMarkdown.Render(run));
    Console.WriteLine();
    Console.WriteLine($"IpcBench reports (report.html, summary.md, summary.csv, env.md, results.json, charts) in {artifacts}");
}
bool failed = summaries.Any(s => s.HasCriticalValidationErrors || s.Reports.Any(r => !r.Success));
return failed ? 1 : 0;
