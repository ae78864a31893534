using System.Text.Json;
using System.Text.Json.Serialization;
using IpcBench.Harness.Measurement;
using IpcBench.Reporting.Collecting;

namespace IpcBench.Reporting;

/// <summary>Reads and writes results.json: System.Text.Json, snake_case names, nulls written out.</summary>
public static class ResultsFile
{
    public const string FileName = "results.json";

    private static readonly JsonSerializerOptions Options = new()
    {
        PropertyNamingPolicy = JsonNamingPolicy.SnakeCaseLower,
        WriteIndented = true,
        IndentSize = 2,
        RespectNullableAnnotations = true,
        RespectRequiredConstructorParameters = true,
        Converters = { new InlineListConverter<PercentilePoint>(), new InlineListConverter<double>() },
        TypeInfoResolver = ResultsJson.Default,
    };

    public static string Serialize(RunResults run) => JsonSerializer.Serialize(run, Options) + "\n";

    /// <summary>One case on its own, as the suite's benchmark processes hand theirs to the suite's host.</summary>
    public static string SerializeCase(CaseResult result) => JsonSerializer.Serialize(result, Options);

    public static CaseResult ParseCase(string json) =>
        JsonSerializer.Deserialize<CaseResult>(json, Options) ?? throw new ResultsFormatException("a case file holds null");

    /// <summary>
    /// The largest results.json read: far above any run's (the suite's 229 cases with their samples take about 5 MB),
    /// and a bound on what a hostile file can make a reader hold.
    /// </summary>
    public const int MaxFileBytes = 64 << 20;

    /// <summary>Writes results.json whole or not at all: a reader never finds half of it, and a link there is replaced, not followed.</summary>
    public static void Write(string folder, RunResults run) => RegularFile.Replace(Path.Combine(folder, FileName), Serialize(run));

    /// <summary>The results in <paramref name="path"/>: a run folder or a results.json file.</summary>
    /// <exception cref="ResultsFormatException">Missing, unreadable, malformed, or another schema.</exception>
    public static RunResults Read(string path)
    {
        string file = Directory.Exists(path) ? Path.Combine(path, FileName) : path;
        if (!File.Exists(file))
        {
            throw new ResultsFormatException(Directory.Exists(path) ? $"{path} has no {FileName}" : $"{path} does not exist");
        }
        string folder = Path.GetDirectoryName(Path.GetFullPath(file))!;
        if (Collecting.RunFolder.IsIncomplete(folder))
        {
            throw new ResultsFormatException($"{folder} is incomplete: its run is under way, or was stopped or failed before it "
                + $"wrote everything ({Collecting.RunFolder.IncompleteMarker} says so); run it again");
        }
        return Parse(RegularFile.ReadResultsText(file, MaxFileBytes), file);
    }

    public static RunResults Parse(string json, string where = FileName)
    {
        try
        {
            // The schema first, so that a newer file is named as such instead of failing on a field.
            using (var doc = JsonDocument.Parse(json))
            {
                if (doc.RootElement.ValueKind != JsonValueKind.Object
                    || !doc.RootElement.TryGetProperty("schema", out var schema) || schema.ValueKind != JsonValueKind.String)
                {
                    throw new ResultsFormatException($"{where}: not IpcBench results (no \"schema\")");
                }
                if (schema.GetString() != RunResults.CurrentSchema)
                {
                    throw new ResultsFormatException(
                        $"{where}: schema {Shown(schema.GetString()!)} is not \"{RunResults.CurrentSchema}\", the one this ipcbench reads");
                }
            }
            var run = JsonSerializer.Deserialize<RunResults>(json, Options)
                ?? throw new ResultsFormatException($"{where}: empty");
            ResultsBounds.Check(run, where);
            return run;
        }
        catch (JsonException e)
        {
            throw new ResultsFormatException($"{where}: malformed: {OneLine(e.Message)}", e);
        }
    }

    private static string OneLine(string text) => text.ReplaceLineEndings(" ");

    /// <summary>A text from the file as an error may quote it: escaped as JSON, so on one line, and cut short.</summary>
    private static string Shown(string text) => JsonSerializer.Serialize(text.Length > 60 ? text[..60] + "..." : text, ResultsJson.Default.String);

    /// <summary>
    /// A list on one line (the ten points of a latency curve, up to 2,000 samples): read together, not one per line.
    /// Read as any list is; a non-finite number cannot be written (JSON has none).
    /// </summary>
    private sealed class InlineListConverter<T> : JsonConverter<IReadOnlyList<T>>
    {
        private static readonly JsonSerializerOptions Inline = new() { PropertyNamingPolicy = JsonNamingPolicy.SnakeCaseLower, TypeInfoResolver = ResultsJson.Default };

        public override IReadOnlyList<T> Read(ref Utf8JsonReader reader, Type typeToConvert, JsonSerializerOptions options) =>
            JsonSerializer.Deserialize<T[]>(ref reader, options) ?? throw new JsonException("a list must not be null");

        public override void Write(Utf8JsonWriter writer, IReadOnlyList<T> value, JsonSerializerOptions options) =>
            writer.WriteRawValue(JsonSerializer.Serialize(value.ToArray(), Inline));
    }
}

/// <summary>
/// results.json's types, serialized by generated code rather than by reflection: the suite's benchmark process writes
/// its case with it, and as a NativeAOT build (IPCBENCH_RUNTIME=aot) it has no reflection serializer.
/// </summary>
[JsonSerializable(typeof(RunResults))]
[JsonSerializable(typeof(CaseResult))]
[JsonSerializable(typeof(PercentilePoint[]))]
[JsonSerializable(typeof(double[]))]
[JsonSerializable(typeof(string))]
internal sealed partial class ResultsJson : JsonSerializerContext;
