using System.Globalization;
using System.Security;
using System.Text;

namespace IpcBench.Reporting.Charts;

/// <summary>A small SVG writer: the handful of shapes the charts draw, coordinates rounded to 0.1 px.</summary>
internal sealed class Svg
{
    public const string Font = "'DejaVu Sans', 'Segoe UI', Helvetica, Arial, sans-serif";
    public const string Ink = "#222222";
    public const string Muted = "#666666";

    private readonly StringBuilder _sb = new();

    public Svg(double width, double height, string title)
    {
        _sb.Append($"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{N(width)}\" height=\"{N(height)}\" viewBox=\"0 0 {N(width)} {N(height)}\" ")
           .Append($"font-family=\"{Font}\" font-size=\"12\">\n");
        _sb.Append($"<title>{Escape(title)}</title>\n");
        Rect(0, 0, width, height, "#ffffff");
    }

    public void Rect(double x, double y, double width, double height, string fill, string? tooltip = null) =>
        _sb.Append($"<rect x=\"{N(x)}\" y=\"{N(y)}\" width=\"{N(width)}\" height=\"{N(height)}\" fill=\"{fill}\"")
           .Append(tooltip is null ? "/>\n" : $"><title>{Escape(tooltip)}</title></rect>\n");

    public void Line(double x1, double y1, double x2, double y2, string stroke, double width = 1, string? dash = null) =>
        _sb.Append($"<line x1=\"{N(x1)}\" y1=\"{N(y1)}\" x2=\"{N(x2)}\" y2=\"{N(y2)}\" stroke=\"{stroke}\" stroke-width=\"{N(width)}\"")
           .Append(dash is null ? "" : $" stroke-dasharray=\"{dash}\"").Append("/>\n");

    public void Polyline(IEnumerable<(double X, double Y)> points, string stroke, double width, string? dash = null)
    {
        var list = points.ToList();
        if (list.Count < 2)
        {
            return;
        }
        _sb.Append($"<polyline points=\"{string.Join(' ', list.Select(p => $"{N(p.X)},{N(p.Y)}"))}\" fill=\"none\" stroke=\"{stroke}\" ")
           .Append($"stroke-width=\"{N(width)}\" stroke-linejoin=\"round\" stroke-linecap=\"round\"")
           .Append(dash is null ? "" : $" stroke-dasharray=\"{dash}\"").Append("/>\n");
    }

    /// <summary>A series marker of <paramref name="shape"/>, about 2r across, centred on (x, y).</summary>
    /// <param name="tooltip">Shown when the pointer rests on the marker (in a browser): the exact figure.</param>
    public void Marker(MarkerShape shape, double x, double y, double r, string fill, string stroke, string? tooltip = null)
    {
        (double X, double Y)[] points = shape switch
        {
            MarkerShape.Circle => [],
            MarkerShape.Square => [(x - r * 0.85, y - r * 0.85), (x + r * 0.85, y - r * 0.85), (x + r * 0.85, y + r * 0.85), (x - r * 0.85, y + r * 0.85)],
            MarkerShape.Triangle => [(x, y - r * 1.15), (x + r * 1.1, y + r * 0.8), (x - r * 1.1, y + r * 0.8)],
            _ => [(x, y - r * 1.25), (x + r * 1.1, y), (x, y + r * 1.25), (x - r * 1.1, y)],
        };
        string element = shape == MarkerShape.Circle ? "circle" : "polygon";
        _sb.Append(shape == MarkerShape.Circle
                ? $"<circle cx=\"{N(x)}\" cy=\"{N(y)}\" r=\"{N(r)}\""
                : $"<polygon points=\"{string.Join(' ', points.Select(p => $"{N(p.X)},{N(p.Y)}"))}\"")
           .Append($" fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"1.5\"")
           .Append(tooltip is null ? "/>\n" : $"><title>{Escape(tooltip)}</title></{element}>\n");
    }

    /// <param name="anchor">start, middle or end.</param>
    /// <param name="rotate">Degrees about (x, y), e.g. -90 for a vertical axis label.</param>
    public void Text(double x, double y, string text, double size = 12, string anchor = "start", string fill = Ink,
        bool bold = false, double rotate = 0)
    {
        _sb.Append($"<text x=\"{N(x)}\" y=\"{N(y)}\" font-size=\"{N(size)}\" fill=\"{fill}\"")
           .Append(anchor == "start" ? "" : $" text-anchor=\"{anchor}\"")
           .Append(bold ? " font-weight=\"bold\"" : "")
           .Append(rotate == 0 ? "" : $" transform=\"rotate({N(rotate)} {N(x)} {N(y)})\"")
           .Append($">{Escape(text)}</text>\n");
    }

    public override string ToString() => _sb + "</svg>\n";

    private static string Escape(string text) => SecurityElement.Escape(text);

    private static string N(double value) => Math.Round(value, 1).ToString("0.#", CultureInfo.InvariantCulture);
}
