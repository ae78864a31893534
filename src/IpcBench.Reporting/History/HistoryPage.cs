using System.Text;
using IpcBench.Reporting.Writers;

namespace IpcBench.Reporting.History;

/// <summary>
/// The history for people: markdown (what <c>ipcbench history</c> prints), and history.html, one self-contained page with
/// each case's chart above its table. A point the gate called slower says so in its row and in red on the chart.
/// </summary>
public static class HistoryPage
{
    public static string Markdown(RunHistory history)
    {
        var md = new StringBuilder($"# History: {history.Points.Count} run(s), {history.Series.Count} case(s)\n\n");
        md.Append("p50: the median of a run's launches (a process launch each), with its 95% interval; gate: what the gate that measured it said of it.\n");
        foreach (var series in history.Series)
        {
            md.Append($"\n## {series.Label}\n\n");
            CaseTable(history, series).WriteTo(md);
        }
        if (history.Points.Any(p => p.Changes.Count > 0))
        {
            md.Append("\n## Where the machine or settings changed\n\n");
            foreach (var p in history.Points.Where(p => p.Changes.Count > 0))
            {
                md.Append($"- before {p.ShortCommit} ({p.Source}): {string.Join("; ", p.Changes)}\n");
            }
        }
        return md.ToString();
    }

    public static string Html(RunHistory history)
    {
        var html = new StringBuilder($"""
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>IpcBench history</title>
            <style>{HtmlReport.Style}</style>
            </head>
            <body>
            <h1>IpcBench history: {history.Points.Count} run(s), {history.Series.Count} case(s)</h1>
            <p>Each point is a run, in the order measured, labelled by its commit: the median p50 of its process launches and that
            median's 95% interval. A point in red is one the gate that measured it called slower.</p>

            """);
        foreach (var series in history.Series)
        {
            html.Append($"<section>\n<h2>{Writers.Html.Text(series.Label)}</h2>\n")
                .Append(Writers.Html.Figure(ChartFileName(series), HistoryChart.Render(history, series)));
            CaseTable(history, series).WriteHtml(html);
            html.Append("</section>\n");
        }
        return html.Append("</body>\n</html>\n").ToString();
    }

    /// <summary>"history-tcp-io_sync-1B-same-core.svg": the case's key kept to letters, digits and '-', an id in the page.</summary>
    public static string ChartFileName(HistorySeries series) =>
        "history-" + new string([.. $"{series.Key.Transport}-{series.Key.Options}-{series.Key.Size}B-{series.Key.Placement}"
            .Select(ch => char.IsAsciiLetterOrDigit(ch) || ch == '-' ? ch : '_')]) + ".svg";

    private static Table CaseTable(RunHistory history, HistorySeries series)
    {
        var table = new Table("commit", "measured (UTC)", "p50 (us)", "95% interval (us)", "launches", "gate", "from") { TextColumns = [1, 5, 6] };
        foreach (var p in series.Points)
        {
            var point = history.Points[p.Point];
            string gate = p.Verdict is { } v ? v.Verdict + (v.P50Change is double c ? $" ({Units.Change(c)})" : "") : "-";
            table.Add(point.ShortCommit, $"{point.Run.StartedAt:yyyy-MM-dd HH:mm}", Units.Us(p.Median),
                p.Interval is { } i ? $"{Units.Us(i.Low)}-{Units.Us(i.High)}" : "-", $"{p.Launches}", p.Verdict?.Slower == true ? $"**{gate}**" : gate, point.Source);
        }
        return table;
    }
}
