namespace IpcBench.Reporting.Charts;

/// <summary>Series colours: the Okabe-Ito set, told apart by people with colour-blindness too (yellow left out: unreadable on white).</summary>
internal static class Palette
{
    private static readonly string[] Colours = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#8C6D31", "#7F7F7F"];

    public static string Colour(int index) => Colours[index % Colours.Length];
}
