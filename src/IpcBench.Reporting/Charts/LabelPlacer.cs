namespace IpcBench.Reporting.Charts;

/// <summary>
/// Places the labels of a scatter's points so that none covers another or a marker: beside its point where there is
/// room, else at the nearest free spot around it (then joined to its point by a thin leader line).
/// </summary>
internal sealed class LabelPlacer(Box plot)
{
    private const double LineHeight = 12;

    private readonly List<(double Left, double Top, double Right, double Bottom)> _taken = [];

    /// <summary>Every marker's area, kept free of labels.</summary>
    public void AvoidPoints(IEnumerable<(double X, double Y)> points)
    {
        foreach (var (x, y) in points)
        {
            _taken.Add((x - 5, y - 5, x + 5, y + 5));
        }
    }

    /// <summary>Where a label of <paramref name="width"/> pixels goes (x of its start, y of its baseline), and whether it needs a leader line.</summary>
    public (double X, double Y, bool Leader) Place(double x, double y, double width)
    {
        foreach (double dy in new[] { 0.0, -1, 1, -2, 2, -3, 3, -4, 4, -5, 5 }.Select(step => step * LineHeight))
        {
            foreach (double lx in new[] { x + 8, x - 8 - width })
            {
                double baseline = y + 4 + dy;
                var box = (Left: lx, Top: baseline - 10, Right: lx + width, Bottom: baseline + 2);
                bool inside = box.Left >= plot.Left - 60 && box.Right <= plot.Right + 10 && box.Top >= plot.Top - 20 && box.Bottom <= plot.Bottom;
                if (inside && !_taken.Any(t => box.Left < t.Right && t.Left < box.Right && box.Top < t.Bottom && t.Top < box.Bottom))
                {
                    _taken.Add(box);
                    return (lx, baseline, dy != 0);
                }
            }
        }
        return (x + 8, y + 4, false);
    }
}
