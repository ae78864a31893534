using System.Net;
using System.Text;
using System.Text.RegularExpressions;

namespace IpcBench.Reporting.Writers;

/// <summary>
/// A report's table, written as markdown or as HTML: cells are escaped, the first column left-aligned, the rest
/// right-aligned (numbers) unless named in <see cref="TextColumns"/>. A cell's <c>**word**</c> is bold in both.
/// </summary>
internal sealed class Table(params string[] header)
{
    private readonly List<string[]> _rows = [];

    /// <summary>Columns of words, left-aligned like the first.</summary>
    public IReadOnlyCollection<int> TextColumns { get; init; } = [];

    public void Add(params string[] cells) => _rows.Add(cells);

    public void WriteTo(StringBuilder md)
    {
        Line(md, header);
        md.Append(string.Concat(Enumerable.Range(0, header.Length).Select(i => IsText(i) ? "|:--" : "|--:"))).Append("|\n");
        foreach (var row in _rows)
        {
            Line(md, row);
        }
    }

    public void WriteHtml(StringBuilder html)
    {
        html.Append("<table class=\"sortable\">\n<thead><tr>");
        for (int i = 0; i < header.Length; i++)
        {
            html.Append($"<th{Align(i)}>{Html.Text(header[i])}</th>");
        }
        html.Append("</tr></thead>\n<tbody>\n");
        foreach (var row in _rows)
        {
            html.Append("<tr>");
            for (int i = 0; i < row.Length; i++)
            {
                html.Append($"<td{Align(i)}>{Html.Text(row[i])}</td>");
            }
            html.Append("</tr>\n");
        }
        html.Append("</tbody>\n</table>\n");
    }

    private bool IsText(int column) => column == 0 || TextColumns.Contains(column);

    private string Align(int column) => IsText(column) ? "" : " class=\"num\"";

    private static void Line(StringBuilder md, string[] cells) =>
        md.Append("| ").Append(string.Join(" | ", cells.Select(Escape))).Append(" |\n");

    public static string Escape(string text) => text.Replace("|", "\\|", StringComparison.Ordinal).ReplaceLineEndings(" ");
}

/// <summary>Text into HTML: escaped, with the reports' markdown of a word, <c>**bold**</c> and <c>`code`</c>, kept.</summary>
internal static partial class Html
{
    public static string Text(string text) =>
        Code().Replace(Bold().Replace(WebUtility.HtmlEncode(text), "<strong>$1</strong>"), "<code>$1</code>");

    /// <summary>A chart inline: an SVG file's own XML is HTML's inline SVG; it keeps its file name as its id.</summary>
    public static string Figure(string fileName, string svg) =>
        $"<figure id=\"{Text(fileName)}\">\n{svg}<figcaption>{Text(fileName)}</figcaption>\n</figure>\n";

    [GeneratedRegex(@"\*\*(.+?)\*\*")]
    private static partial Regex Bold();

    [GeneratedRegex("`(.+?)`")]
    private static partial Regex Code();
}
