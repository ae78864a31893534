using System.Globalization;
using System.Text;
using IpcBench.Reporting.Collecting;

namespace IpcBench.Reporting.Writers;

/// <summary>
/// summary.md: the figures people quote. Latency (p50 / p99) and requests/s as transport-by-size
/// matrices, then what each request cost, then what was skipped; above them, the facts no figure
/// may be quoted without (placement, isolation, machine, commit).
/// </summary>
public static class SummaryMarkdown
{
    public const string FileName = "summary.md";

    public static string Render(RunResults run)
    {
        var layout = new RunLayout(run);
        var env = run.Environment;
        var md = new StringBuilder();
        md.Append($"# IpcBench run {run.Id}\n\n");
        md.Append($"- placement: {env.Placement}\n");
        md.Append($"- isolation: {env.Isolation}\n");
        md.Append($"- machine: {Machine(env)}\n");
        md.Append($"- commit: {run.GitCommit ?? "unknown"}\n");
        md.Append($"- started: {run.StartedAt.UtcDateTime.ToString("yyyy-MM-dd HH:mm:ss", CultureInfo.InvariantCulture)} UTC\n");
        if (layout.CommonOptions.Length > 0)
        {
            md.Append($"- every case: {layout.CommonOptions.Replace("&", ", ", StringComparison.Ordinal)}\n");
        }
        md.Append("\n");

        md.Append("## Latency, p50 / p99 (us)\n\n");
        Matrix(layout, c => $"{Units.Us(c.LatencyUs.P50)} / {Units.Us(c.LatencyUs.P99)}").WriteTo(md);
        md.Append("\n## Requests per second\n\n");
        Matrix(layout, c => Units.Rate(c.RequestsPerSecond)).WriteTo(md);

        IsolationTable.WriteTo(md, run);

        md.Append("\n## Cost per request\n\n");
        var cost = new MarkdownTable("transport", "size", "client CPU us", "server CPU us", "allocated B", "requests", "errors");
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
        cost.WriteTo(md);

        md.Append("\n## Skipped\n\n");
        if (run.Skipped.Count == 0)
        {
            md.Append("No case was skipped.\n");
        }
        foreach (var s in run.Skipped)
        {
            string what = CaseOptions.Label(s.Transport, CaseOptions.Normalize(s.Options), layout.CommonOptions)
                + (s.Size is int size ? $" at {Units.Size(size)}" : "");
            md.Append($"- {what}: {s.Reason.ReplaceLineEndings(" ")}\n");
        }
        return md.ToString();
    }

    public static void Write(string folder, RunResults run) =>
        File.WriteAllText(Path.Combine(folder, FileName), Render(run));

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

    private static MarkdownTable Matrix(RunLayout layout, Func<CaseResult, string> cell)
    {
        var table = new MarkdownTable(layout.Sizes.Select(Units.Size).Prepend("transport").ToArray());
        foreach (var row in layout.Rows)
        {
            table.Add(layout.Sizes.Select(size =>
                layout.Case(row, size) is { } c ? cell(c) : layout.Skipped(row, size) is not null ? "skipped" : Units.Missing)
                .Prepend(row.Label).ToArray());
        }
        return table;
    }
}
