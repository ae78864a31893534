using System.Text;
using System.Text.Json;

namespace IpcBench.Reporting.History;

/// <summary>
/// The history for a script to read (<c>ipcbench history --json FILE</c>): the runs in the order measured (source,
/// commit, start, what changed from the one before), then each case's key and, per run that measured it, the median
/// p50, its interval, the launches and the gate's verdict. Written with <see cref="Utf8JsonWriter"/>, as compare's is.
/// </summary>
public static class HistoryJson
{
    public static string Render(RunHistory history)
    {
        using var buffer = new MemoryStream();
        using (var json = new Utf8JsonWriter(buffer, new JsonWriterOptions { Indented = true }))
        {
            json.WriteStartObject();
            json.WriteStartArray("runs");
            foreach (var p in history.Points)
            {
                json.WriteStartObject();
                json.WriteString("source", p.Source);
                json.WriteString("id", p.Run.Id);
                json.WriteString("git_commit", p.Run.GitCommit);
                json.WriteString("started_at", p.Run.StartedAt);
                json.WriteStartArray("changed");
                p.Changes.ToList().ForEach(d => json.WriteStringValue(d.ToString()));
                json.WriteEndArray();
                json.WriteEndObject();
            }
            json.WriteEndArray();
            json.WriteStartArray("cases");
            foreach (var s in history.Series)
            {
                json.WriteStartObject();
                json.WriteStartObject("key");
                json.WriteString("transport", s.Key.Transport);
                json.WriteString("options", s.Key.Options);
                json.WriteNumber("size", s.Key.Size);
                json.WriteString("placement", s.Key.Placement);
                json.WriteEndObject();
                json.WriteStartArray("points");
                foreach (var p in s.Points)
                {
                    json.WriteStartObject();
                    json.WriteNumber("run", p.Point);
                    json.WriteNumber("p50", p.Median);
                    if (p.Interval is { } i)
                    {
                        json.WriteNumber("low", i.Low);
                        json.WriteNumber("high", i.High);
                    }
                    json.WriteNumber("launches", p.Launches);
                    json.WriteString("verdict", p.Verdict?.Verdict); // null: no gate judged it
                    json.WriteEndObject();
                }
                json.WriteEndArray();
                json.WriteEndObject();
            }
            json.WriteEndArray();
            json.WriteEndObject();
        }
        return Encoding.UTF8.GetString(buffer.ToArray()) + "\n";
    }
}
