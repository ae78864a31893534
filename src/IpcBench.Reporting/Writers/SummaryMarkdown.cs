using System.Globalization;
using IpcBench.Reporting.Collecting;

namespace IpcBench.Reporting.Writers;

/// <summary>
/// summary.md: the figures people quote. Above them, the facts no figure may be quoted without (placement, isolation,
/// machine, commit), the ranking at each size (<see cref="Ranking"/>) and a few sentences on what the run says. Then
/// the steady state (latency p50 / p99, its excess over the in-process floor and requests/s as transport-by-size
/// matrices, the isolation table, what each request cost), the cold starts and the cases under load each in tables of
/// their own, and what was skipped last.
/// </summary>
public static class SummaryMarkdown
{
    public const string FileName = "summary.md";

    public static string Render(RunResults run) => $"# IpcBench run {run.Id}\n\n" + string.Concat(Sections(run).Select(s => s.ToMarkdown()));

    /// <summary>What summary.md and report.html both hold, in their order.</summary>
    internal static IReadOnlyList<ReportSection> Sections(RunResults run)
    {
        var steady = RunDigest.Of(run, CaseKind.Steady);
        var layout = new RunLayout(run with { Cases = steady });
        var env = run.Environment;
        var facts = new List<string>
        {
            $"placement: {env.Placement}",
            $"isolation: {env.Isolation}",
            $"machine: {Machine(env)}",
            $"commit: {run.GitCommit ?? "unknown"}",
            $"started: {run.StartedAt.UtcDateTime.ToString("yyyy-MM-dd HH:mm:ss", CultureInfo.InvariantCulture)} UTC",
        };
        if (layout.CommonOptions.Length > 0)
        {
            facts.Add($"every case: {layout.CommonOptions.Replace("&", ", ", StringComparison.Ordinal)}");
        }
        var sections = new List<ReportSection> { new(null, facts) };
        sections.AddRange(Ranking.Sections(run));
        if (RunDigest.Sentences(run) is { Count: > 0 } digest)
        {
            sections.Add(new ReportSection("What to read here", digest));
        }
        if (steady.Count > 0)
        {
            sections.Add(new ReportSection("Latency, p50 / p99 (us)", [], Matrix(layout, c => $"{Units.Us(c.LatencyUs.P50)} / {Units.Us(c.LatencyUs.P99)}")));
            if (RunDigest.FloorRow(layout) is { } floor)
            {
                sections.Add(new ReportSection($"Over the floor: p50 minus {floor.Label}'s (us)",
                    [$"{floor.Label} calls the handler in the client's process and copies the payload in and out: what a transport costs over it is what crossing processes costs."],
                    Matrix(layout, c => layout.Case(floor, c.Size) is { } f ? Units.Us(c.LatencyUs.P50 - f.LatencyUs.P50) : Units.Missing,
                        layout.Rows.Where(r => r.Family != RunDigest.BaselineFamily))));
            }
            sections.Add(new ReportSection("Requests per second", [], Matrix(layout, c => Units.Rate(c.RequestsPerSecond))));
            if (IsolationTable.Section(run with { Cases = steady }) is { } isolation)
            {
                sections.Add(isolation);
            }
            sections.Add(new ReportSection("Cost per request", [], CostTable(layout)));
            if (AnatomySection.Of(run, layout) is { } anatomy)
            {
                sections.Add(anatomy);
            }
        }
        if (RunDigest.Of(run, CaseKind.ColdStart) is { Count: > 0 } cold)
        {
            sections.Add(LoadTable.ColdStarts(cold));
        }
        if (RunDigest.Of(run, CaseKind.UnderLoad) is { Count: > 0 } loaded)
        {
            sections.Add(LoadTable.UnderLoad(run, loaded));
        }
        string common = CaseOptions.Common(run.Cases.Select(c => c.Options));
        var skipped = run.Skipped.Select(s => CaseOptions.Label(s.Transport, CaseOptions.Normalize(s.Options), common)
            + (s.Size is int size ? $" at {Units.Size(size)}" : "") + $": {s.Reason.ReplaceLineEndings(" ")}").ToList();
        sections.Add(skipped.Count == 0 ? new ReportSection("Skipped", [], After: ["No case was skipped."]) : new ReportSection("Skipped", skipped));
        return sections;
    }

    /// <summary>Each case's CPU time and allocation per request, beside how many requests and errors they come from.</summary>
    private static Table CostTable(RunLayout layout)
    {
        var cost = new Table("transport", "size", "client CPU us", "server CPU us", "allocated B", "requests", "errors");
        foreach (var row in layout.Rows)
        {
            foreach (int size in layout.Sizes)
            {
                if (layout.Case(row, size) is { } c)
                {
                    cost.Add(row.Label, Units.Size(size), Units.Cpu(c.ClientCpuUsPerOp), Units.Cpu(c.ServerCpuUsPerOp),
                        Units.Bytes(c.AllocatedBytesPerOp), Units.Count(c.Count), Units.Count(c.Errors));
                }
            }
        }
        return cost;
    }

    /// <summary>"AMD EPYC, 2 logical CPUs; Debian GNU/Linux 12 (bookworm), kernel 6.1.0; .NET 10.0.12; clocksource tsc".</summary>
    public static string Machine(RunEnvironment env)
    {
        var parts = new List<string>
        {
            $"{env.CpuModel ?? "unknown CPU"}, {env.LogicalCpus} logical CPUs",
            env.Kernel is null ? env.Os : $"{env.Os}, kernel {env.Kernel}",
            env.Runtime,
        };
        if (env.Clocksource is not null)
        {
            parts.Add($"clocksource {env.Clocksource}");
        }
        return string.Join("; ", parts);
    }

    private static Table Matrix(RunLayout layout, Func<CaseResult, string> cell, IEnumerable<RunLayout.Row>? rows = null)
    {
        var table = new Table(layout.Sizes.Select(Units.Size).Prepend("transport").ToArray());
        foreach (var row in rows ?? layout.Rows)
        {
            table.Add(layout.Sizes.Select(size =>
                layout.Case(row, size) is { } c ? cell(c) : layout.Skipped(row, size) is not null ? "skipped" : Units.Missing)
                .Prepend(row.Label).ToArray());
        }
        return table;
    }
}
