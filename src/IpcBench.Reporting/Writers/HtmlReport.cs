using System.Text;

namespace IpcBench.Reporting.Writers;

/// <summary>
/// report.html: the run in one self-contained page that opens from disk: the summary's sections (every table sortable
/// by a click on its heading), the charts inline, and the environment. No fetch, no font, no script from elsewhere.
/// </summary>
public static class HtmlReport
{
    public const string FileName = "report.html";

    /// <param name="charts">The charts written beside it, by file name, in their order.</param>
    public static string Render(RunResults run, IReadOnlyList<(string FileName, string Svg)> charts)
    {
        var html = new StringBuilder();
        html.Append($"""
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>IpcBench run {Html.Text(run.Id)}</title>
            <style>{Style}</style>
            </head>
            <body>
            <h1>IpcBench run {Html.Text(run.Id)}</h1>

            """);
        var sections = SummaryMarkdown.Sections(run);
        html.AppendJoin("", sections.Select(s => s.ToHtml(charts.FirstOrDefault(c => c.FileName == s.Chart).Svg)));
        var rest = charts.Where(c => !sections.Any(s => s.Chart == c.FileName)).ToList(); // drawn in their sections already
        if (rest.Count > 0)
        {
            html.Append("<section>\n<h2>Charts</h2>\n");
            html.AppendJoin("", rest.Select(c => Html.Figure(c.FileName, c.Svg)));
            html.Append("</section>\n");
        }
        html.Append("<section class=\"environment\">\n<h2>Environment</h2>\n");
        html.AppendJoin("", EnvironmentMarkdown.Sections(run).Select(s => s.ToHtml()));
        html.Append($"</section>\n<script>{Script}</script>\n</body>\n</html>\n");
        return html.ToString();
    }

    internal const string Style = """

        body { font-family: 'DejaVu Sans', 'Segoe UI', Helvetica, Arial, sans-serif; color: #222; margin: 2em auto; max-width: 1100px; padding: 0 1em; }
        h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 1.6em; }
        table { border-collapse: collapse; margin: 0.5em 0; font-size: 0.92em; }
        th, td { border-bottom: 1px solid #ddd; padding: 0.3em 0.7em; text-align: left; }
        th { background: #f3f3f3; cursor: pointer; user-select: none; white-space: nowrap; }
        th[aria-sort=ascending]::after { content: " \25B2"; } th[aria-sort=descending]::after { content: " \25BC"; }
        .num { text-align: right; font-variant-numeric: tabular-nums; }
        tbody tr:hover { background: #f7f9fc; }
        figure { margin: 1em 0; } figure svg { max-width: 100%; height: auto; } figcaption { color: #666; font-size: 0.85em; }
        code { background: #f3f3f3; padding: 0 0.2em; }

        """;

    /// <summary>Sorting by column: numbers by value ("1,234", "2.5x", "15.0 / 20.1" by its first), words as text, "-" last.</summary>
    private const string Script = """

        "use strict";
        function cellValue(text) {
          const m = text.replace(/,/g, "").match(/^-?[0-9.]+/);
          return m ? parseFloat(m[0]) : null;
        }
        for (const table of document.querySelectorAll("table.sortable")) {
          const heads = table.tHead.rows[0].cells;
          for (let i = 0; i < heads.length; i++) {
            heads[i].addEventListener("click", () => {
              const ascending = heads[i].getAttribute("aria-sort") !== "ascending";
              for (const h of heads) h.removeAttribute("aria-sort");
              heads[i].setAttribute("aria-sort", ascending ? "ascending" : "descending");
              const rows = Array.from(table.tBodies[0].rows);
              rows.sort((a, b) => {
                const x = a.cells[i].textContent, y = b.cells[i].textContent;
                const nx = cellValue(x), ny = cellValue(y);
                if (nx === null || ny === null) {
                  if (nx !== ny) return nx === null ? 1 : -1;
                  return ascending ? x.localeCompare(y) : y.localeCompare(x);
                }
                return ascending ? nx - ny : ny - nx;
              });
              for (const r of rows) table.tBodies[0].appendChild(r);
            });
          }
        }
        document.body.dataset.ready = "true";

        """;
}
