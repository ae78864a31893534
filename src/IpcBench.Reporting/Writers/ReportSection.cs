using System.Text;

namespace IpcBench.Reporting.Writers;

/// <summary>
/// A part of a run's summary, kept as data so that summary.md and report.html say the same: a heading (none for the
/// facts at the top), bullet points, a table, and lines under it.
/// </summary>
internal sealed record ReportSection(string? Heading, IReadOnlyList<string> Bullets, Table? Table = null, IReadOnlyList<string>? After = null)
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
        if (Table is not null)
        {
            md.Append(Bullets.Count > 0 ? "\n" : ""); // a table right under a list would be read as part of its last item
            Table.WriteTo(md);
        }
        bool separate = Bullets.Count > 0 || Table is not null;
        foreach (string line in After ?? [])
        {
            md.Append(separate ? "\n" : "").Append($"{line}\n");
            separate = true;
        }
        return md.ToString();
    }

    public string ToHtml()
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
        Table?.WriteHtml(html);
        foreach (string line in After ?? [])
        {
            html.Append($"<p>{Html.Text(line)}</p>\n");
        }
        return html.Append("</section>\n").ToString();
    }
}
