using System.Text.Json;
using IpcBench.Reporting.Collecting;

namespace IpcBench.Reporting.History;

/// <summary>A case as <c>ipcbench compare --json</c> names it: transport, options (normalized), size and placement.</summary>
public readonly record struct VerdictKey(string Transport, string Options, int Size, string Placement)
{
    public static VerdictKey Of(CaseResult c) => new(c.Transport, CaseOptions.Normalize(c.Options), c.Size, c.Placement);
}

/// <summary>What a gate said of one case: its verdict (same, slower, faster, cannot-tell) and the change of its p50.</summary>
public sealed record GateVerdict(string Verdict, double? P50Change)
{
    public bool Slower => Verdict == "slower";
}

/// <summary>
/// A kept gate's verdicts.json (<c>ipcbench compare --json</c>, benchmarks/ab.sh --keep), read as data that may come from
/// anywhere: a regular file of bounded size, every field checked; anything else is one line that names the file.
/// </summary>
public static class GateVerdicts
{
    public const string FileName = "verdicts.json";

    /// <summary>The largest verdicts.json read: far above a gate's over every transport and size.</summary>
    public const int MaxBytes = 16 << 20;

    private static readonly string[] Known = ["same", "slower", "faster", "cannot-tell"];

    /// <exception cref="ResultsFormatException">Not a verdicts file this ipcbench wrote.</exception>
    public static IReadOnlyDictionary<VerdictKey, GateVerdict> Read(string path)
    {
        return Parse(RegularFile.ReadResultsText(path, MaxBytes), path);
    }

    /// <summary>The verdicts in <paramref name="text"/>, read from <paramref name="path"/> (which an error names).</summary>
    /// <exception cref="ResultsFormatException">Not a verdicts file this ipcbench wrote.</exception>
    public static IReadOnlyDictionary<VerdictKey, GateVerdict> Parse(string text, string path)
    {
        try
        {
            using var json = JsonDocument.Parse(text);
            var verdicts = new Dictionary<VerdictKey, GateVerdict>();
            foreach (var c in Property(json.RootElement, "cases", JsonValueKind.Array).EnumerateArray())
            {
                var key = Property(c, "key", JsonValueKind.Object);
                int size = Property(key, "size", JsonValueKind.Number).TryGetInt32(out int s) && s >= 0
                    ? s : throw new FormatException("a case's size is not a whole number of bytes");
                var verdictKey = new VerdictKey(Text(key, "transport"), CaseOptions.Normalize(Text(key, "options")), size, Text(key, "placement"));
                string verdict = Text(c, "verdict");
                if (!Known.Contains(verdict))
                {
                    throw new FormatException($"a case's verdict is '{verdict}', none of {string.Join(", ", Known)}");
                }
                double? change = c.TryGetProperty("p50_change", out var p) && p.ValueKind == JsonValueKind.Number && double.IsFinite(p.GetDouble()) ? p.GetDouble() : null;
                verdicts[verdictKey] = new GateVerdict(verdict, change);
            }
            return verdicts;
        }
        catch (Exception e) when (e is JsonException or FormatException or InvalidOperationException)
        {
            throw new ResultsFormatException($"{path}: not a gate's verdicts ({e.Message.ReplaceLineEndings(" ")})");
        }
    }

    private static JsonElement Property(JsonElement element, string name, JsonValueKind kind) =>
        element.ValueKind == JsonValueKind.Object && element.TryGetProperty(name, out var value) && value.ValueKind == kind
            ? value : throw new FormatException($"no '{name}' ({kind.ToString().ToLowerInvariant()}) where one belongs");

    private static string Text(JsonElement element, string name) =>
        Property(element, name, JsonValueKind.String).GetString() is { Length: <= ResultsBounds.MaxName } text
            ? text : throw new FormatException($"'{name}' is longer than {ResultsBounds.MaxName} characters");
}
