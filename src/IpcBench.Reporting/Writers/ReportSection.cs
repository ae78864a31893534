using System.Text;

namespace IpcBench.Reporting.Writers;

/// <summary>
/// A part of a run's summary, kept as data so that summary.md and report.html say the same: a heading (none for the
/// facts at the top), bullet points, the chart that goes with it (a file name beside the report: linked in summary.md,
/// drawn in place in report.html), a table, and lines under it.
/// </summary>
internal sealed record ReportSection(string? Heading, IReadOnlyList<string> Bullets, Table? Table = null, IReadOnlyList<string>? After = null,
    string? Chart = null)
{
    public string ToMarkdown()
    {
        var md = new StringBuilder();
        if (Heading is not null)
        {
            md.Append($"\n## {Heading}\n\n");
        }
        foreach (string bullet in Bullets)
        {
            md.Append($"- {bullet.ReplaceLineEndings(" ")}\n");
        }
        if (Chart is not null)
        {
            md.Append(Bullets.Count > 0 ? "\n" : "").Append($"![{Heading ?? Chart}]({Chart})\n");
        }
        if (Table is not null)
        {
            md.Append(Bullets.Count > 0 || Chart is not null ? "\n" : ""); // a table right under a list would be read as part of its last item
            Table.WriteTo(md);
        }
        bool separate = Bullets.Count > 0 || Table is not null || Chart is not null;
        foreach (string line in After ?? [])
        {
            md.Append(separate ? "\n" : "").Append($"{line}\n");
            separate = true;
        }
        return md.ToString();
    }

    /// <param name="svg">The chart's SVG, when it has one, drawn above the table.</param>
    public string ToHtml(string? svg = null)
    {
        var html = new StringBuilder("<section>\n");
        if (Heading is not null)
        {
            html.Append($"<h2>{Html.Text(Heading)}</h2>\n");
        }
        if (Bullets.Count > 0)
        {
            html.Append("<ul>\n").AppendJoin("", Bullets.Select(b => $"<li>{Html.Text(b)}</li>\n")).Append("</ul>\n");
        }
        if (Chart is not null && svg is not null)
        {
            html.Append(Html.Figure(Chart, svg));
        }
        Table?.WriteHtml(html);
        foreach (string line in After ?? [])
        {
            html.Append($"<p>{Html.Text(line)}</p>\n");
        }
        return html.Append("</section>\n").ToString();
    }
}
