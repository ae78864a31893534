using System.Globalization;

namespace IpcBench.Reporting.Writers;

/// <summary>env.md: the machine and the options of a run, as a list a person reads.</summary>
public static class EnvironmentMarkdown
{
    public const string FileName = "env.md";

    public static string Render(RunResults run) =>
        $"# Environment of IpcBench run {run.Id}\n\n" + string.Concat(Sections(run).Select(s => s.ToMarkdown()));

    /// <summary>What env.md and report.html's environment hold.</summary>
    internal static IReadOnlyList<ReportSection> Sections(RunResults run)
    {
        var env = run.Environment;
        return
        [
            new(null,
            [
                $"started: {run.StartedAt.UtcDateTime.ToString("yyyy-MM-dd HH:mm:ss", CultureInfo.InvariantCulture)} UTC",
                $"commit: {run.GitCommit ?? "unknown (not a git work tree, or no git)"}",
                $"command line: `{run.CommandLine.Replace("`", "'", StringComparison.Ordinal)}`",
            ]),
            new("Machine",
            [
                $"OS: {env.Os}",
                $"kernel: {env.Kernel ?? "unknown"}",
                $"CPU: {env.CpuModel ?? "unknown"}",
                $"logical CPUs: {env.LogicalCpus}",
                $"runtime: {env.Runtime}",
                $"clocksource: {env.Clocksource ?? "unknown"}",
                $"cpu limits: {env.CpuLimits ?? "unknown"}",
                $"isolation: {env.Isolation}{(env.IsolationEvidence is { } why ? $" ({why})" : "")}",
                $"placement: {env.Placement}",
            ]),
            WakeUpText.Section(env.WakeUp),
            env.Options.Count == 0
                ? new("Options", [], After: ["None recorded."])
                : new("Options", [.. env.Options.OrderBy(o => o.Key, StringComparer.Ordinal).Select(o => $"{o.Key}: {(o.Value.Length == 0 ? "(empty)" : o.Value)}")]),
        ];
    }
}
