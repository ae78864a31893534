using System.Text;
using System.Text.Json;

namespace IpcBench.Reporting.Comparison;

/// <summary>
/// The comparison's verdicts for a script to read (<c>ipcbench compare --json FILE</c>), where the markdown is for people:
/// one record per case in both runs, with its key, its verdict (same, slower, faster, cannot-tell), the change of its p50,
/// the rank test's p-value, and, when it was judged on launches, their count and the p50 ratio's interval.
/// Written with <see cref="Utf8JsonWriter"/>, so a NativeAOT build writes it too.
/// </summary>
public static class ComparisonJson
{
    public static string Render(RunComparison cmp)
    {
        using var buffer = new MemoryStream();
        using (var json = new Utf8JsonWriter(buffer, new JsonWriterOptions { Indented = true }))
        {
            json.WriteStartObject();
            json.WriteString("baseline", cmp.Baseline.Id);
            json.WriteString("current", cmp.Current.Id);
            json.WriteNumber("threshold", cmp.Threshold);
            json.WriteNumber("alpha", cmp.Alpha);
            json.WriteStartArray("cases");
            foreach (var c in cmp.Cases)
            {
                json.WriteStartObject();
                json.WriteStartObject("key");
                json.WriteString("transport", c.Current.Transport);
                json.WriteString("options", CaseOptions.Normalize(c.Current.Options));
                json.WriteNumber("size", c.Current.Size);
                json.WriteString("placement", c.Current.Placement);
                json.WriteEndObject();
                json.WriteString("verdict", Name(c.Verdict));
                if (double.IsFinite(c.P50Change))
                {
                    json.WriteNumber("p50_change", c.P50Change);
                }
                else
                {
                    json.WriteNull("p50_change"); // the baseline's p50 was 0: no ratio to give
                }
                json.WriteNumber("p_value", c.PValue);
                json.WriteNumber("baseline_launches", c.Baseline.Launches.Count);
                json.WriteNumber("current_launches", c.Current.Launches.Count);
                if (c.P50Ratio is { Bounded: true } ratio)
                {
                    json.WriteStartObject("p50_ratio");
                    json.WriteNumber("estimate", ratio.Estimate);
                    json.WriteNumber("low", ratio.Low);
                    json.WriteNumber("high", ratio.High);
                    json.WriteNumber("confidence", ratio.Confidence);
                    json.WriteEndObject();
                }
                else
                {
                    json.WriteNull("p50_ratio"); // judged by requests, or too few launches for an interval
                }
                json.WriteEndObject();
            }
            json.WriteEndArray();
            json.WriteEndObject();
        }
        return Encoding.UTF8.GetString(buffer.ToArray()) + "\n";
    }

    /// <summary>A verdict as scripts read it: "same", "slower", "faster", "cannot-tell".</summary>
    public static string Name(Verdict verdict) => verdict == Verdict.CannotTell ? "cannot-tell" : verdict.ToString().ToLowerInvariant();

    /// <summary>The verdict <see cref="Name"/> gives <paramref name="name"/>, or null.</summary>
    public static Verdict? Parse(string name) => Enum.GetValues<Verdict>().Where(v => Name(v) == name).Select(v => (Verdict?)v).FirstOrDefault();

    /// <summary>Writes <see cref="Render"/> to <paramref name="path"/> whole or not at all.</summary>
    public static void Write(string path, RunComparison cmp)
    {
        File.WriteAllText(path + ".partial", Render(cmp));
        File.Move(path + ".partial", path, overwrite: true);
    }
}
