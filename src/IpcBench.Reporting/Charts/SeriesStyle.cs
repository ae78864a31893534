namespace IpcBench.Reporting.Charts;

public enum MarkerShape
{
    Circle,
    Square,
    Triangle,
    Diamond,
}

/// <summary>How one series is drawn: its colour and marker. No two of the first 32 series share both.</summary>
internal sealed record SeriesStyle(string Colour, MarkerShape Marker)
{
    /// <summary>
    /// The Okabe-Ito set, told apart by people with colour-blindness too (yellow left out: unreadable on white), and a
    /// brown. Eight colours and four markers: the markers turn with each series and shift by one every eight, so that
    /// series 0 and 8 share a colour and not a marker.
    /// </summary>
    private static readonly string[] Colours = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#8C6D31"];

    public static SeriesStyle For(int index) =>
        new(Colours[index % Colours.Length], (MarkerShape)((index + index / Colours.Length) % Enum.GetValues<MarkerShape>().Length));

    /// <summary>A colour for each family, for charts that colour by family (cost, cold starts): one per <see cref="Contract.TransportFamily"/>, then grey.</summary>
    public static SeriesStyle ForFamily(string family) =>
        Enum.TryParse<Contract.TransportFamily>(family, ignoreCase: true, out var f) ? For((int)f) : new SeriesStyle("#7F7F7F", MarkerShape.Circle);
}
