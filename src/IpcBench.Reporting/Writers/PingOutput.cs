using System.Globalization;
using System.Text;
using System.Text.Encodings.Web;
using System.Text.Json;

namespace IpcBench.Reporting;

/// <summary>
/// What <c>ipcbench ping</c> prints and what <c>--json</c> writes, both made from the run's one case, as results.json
/// holds it. The JSON field names are documented (README) and kept: scripts read them.
/// </summary>
public static class PingOutput
{
    public static string Text(RunResults run)
    {
        var (c, address) = (run.Cases.Single(), run.Environment.Options["address"]);
        var l = c.LatencyUs;
        string options = CaseOptions.Without(c.Options, ConnectScenario);
        return string.Create(CultureInfo.InvariantCulture, $"""
            {c.Transport} {c.Size} B x {Asked(c)}{(IsConnect(c) ? " connect + request + close cycles" : "")} (placement {run.Environment.Placement}{(options.Length > 0 ? ", " + options : "")}) to {address}
              latency us  p50 {l.P50:0.0}  p90 {l.P90:0.0}  p99 {l.P99:0.0}  p99.9 {l.P999:0.0}  max {l.Max:0.0}  mean {l.Mean:0.0}
              throughput  {c.RequestsPerSecond:0} requests/s, {c.Errors} errors
              client      {c.ClientCpuUsPerOp:0.0} us CPU and {c.AllocatedBytesPerOp ?? 0:0.#} B allocated per request
              server      {(c.ServerCpuUsPerOp is double s ? $"{s:0.0} us CPU per request" : "CPU not reported (not an ipcbench server?)")}

            """);
    }

    public static string Json(RunResults run)
    {
        var c = run.Cases.Single();
        var l = c.LatencyUs;
        using var buffer = new MemoryStream();
        using (var json = new Utf8JsonWriter(buffer, new JsonWriterOptions { Indented = true, Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping }))
        {
            json.WriteStartObject();
            json.WriteString("transport", c.Transport);
            json.WriteString("address", run.Environment.Options["address"]);
            json.WriteString("options", CaseOptions.Without(c.Options, ConnectScenario));
            json.WriteString("scenario", IsConnect(c) ? "connect" : "steady");
            json.WriteNumber("size", c.Size);
            json.WriteNumber("count", Asked(c));
            json.WriteNumber("warmup", int.Parse(run.Environment.Options["warmup"], CultureInfo.InvariantCulture));
            json.WriteString("placement", run.Environment.Placement);
            json.WriteNumber("p50_us", l.P50);
            json.WriteNumber("p90_us", l.P90);
            json.WriteNumber("p99_us", l.P99);
            json.WriteNumber("p999_us", l.P999);
            json.WriteNumber("max_us", l.Max);
            json.WriteNumber("mean_us", l.Mean);
            json.WriteNumber("min_us", l.Min);
            json.WriteNumber("rps", c.RequestsPerSecond);
            json.WriteNumber("errors", c.Errors);
            json.WriteNumber("alloc_bytes_per_op", c.AllocatedBytesPerOp ?? 0);
            json.WriteNumber("cpu_us_per_op", c.ClientCpuUsPerOp);
            if (c.ServerCpuUsPerOp is double server) json.WriteNumber("server_cpu_us_per_op", server);
            else json.WriteNull("server_cpu_us_per_op");
            json.WriteNumber("elapsed_s", c.RequestsPerSecond > 0 ? Math.Round(c.Count / c.RequestsPerSecond, 3) : 0);
            json.WriteString("os", run.Environment.Os);
            json.WriteString("runtime", run.Environment.Runtime);
            json.WriteNumber("cpus", run.Environment.LogicalCpus);
            json.WriteString("timestamp", run.StartedAt.ToString("O", CultureInfo.InvariantCulture));
            json.WriteEndObject();
        }
        return Encoding.UTF8.GetString(buffer.ToArray()) + Environment.NewLine;
    }

    private const string ConnectScenario = "scenario=connect";

    private static bool IsConnect(CaseResult c) => CaseOptions.Parse(c.Options).Any(kv => $"{kv.Key}={kv.Value}" == ConnectScenario);

    /// <summary>The requests asked for: those measured and those lost.</summary>
    private static long Asked(CaseResult c) => c.Count + c.Errors;
}
