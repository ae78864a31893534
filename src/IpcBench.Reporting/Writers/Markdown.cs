using System.Text;

namespace IpcBench.Reporting.Writers;

/// <summary>A markdown table builder: cells are escaped, the first column left-aligned, the rest right-aligned (numbers) unless named in <see cref="TextColumns"/>.</summary>
internal sealed class MarkdownTable(params string[] header)
{
    private readonly List<string[]> _rows = [];

    /// <summary>Columns of words, left-aligned like the first.</summary>
    public IReadOnlyCollection<int> TextColumns { get; init; } = [];

    public void Add(params string[] cells) => _rows.Add(cells);

    public void WriteTo(StringBuilder md)
    {
        Line(md, header);
        md.Append(string.Concat(Enumerable.Range(0, header.Length).Select(i => i == 0 || TextColumns.Contains(i) ? "|:--" : "|--:"))).Append("|\n");
        foreach (var row in _rows)
        {
            Line(md, row);
        }
    }

    private static void Line(StringBuilder md, string[] cells) =>
        md.Append("| ").Append(string.Join(" | ", cells.Select(Escape))).Append(" |\n");

    public static string Escape(string text) => text.Replace("|", "\\|", StringComparison.Ordinal).ReplaceLineEndings(" ");
}
