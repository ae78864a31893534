using System.Globalization;
using System.Text.Encodings.Web;
using System.Text.Json;

namespace IpcBench.Reporting.Writers;

/// <summary>
/// What <c>ipcbench ping</c> prints and what <c>--json</c> writes, both made from the run's one case, as results.json
/// holds it. The JSON field names are kept: scripts read them.
/// </summary>
public static class PingOutput
{
    public static string Text(RunResults run)
    {
        var (c, address) = (run.Cases.Single(), run.Environment.Options["address"]);
        var l = c.LatencyUs;
        string options = CaseOptions.Without(c.Options, CaseOptions.ConnectScenario);
        return string.Create(CultureInfo.InvariantCulture, $"""
            {c.Transport} {c.Size} B x {Asked(c)}{(IsConnect(c) ? " connect + request + close cycles" : "")} (placement {run.Environment.Placement}{(options.Length > 0 ? ", " + options : "")}) to {address}
              latency us  p50 {l.P50:0.0}  p90 {l.P90:0.0}  p99 {l.P99:0.0}  p99.9 {l.P999:0.0}  max {l.Max:0.0}  mean {l.Mean:0.0}
              throughput  {c.RequestsPerSecond:0} requests/s, {c.MegabytesPerSecond ?? 0:0.###} MB/s, {c.Errors} errors{Load(c)}
              client      {c.ClientCpuUsPerOp:0.0} us CPU and {c.AllocatedBytesPerOp ?? 0:0.#} B allocated per request
              server      {(c.ServerCpuUsPerOp is double s ? $"{s:0.0} us CPU per request" : "CPU not reported (not an ipcbench server?)")}

            """);
    }

    /// <summary>Under load, the lines that say how it went: the clients' spread, and whether an open loop kept its rate.</summary>
    private static string Load(CaseResult c)
    {
        string text = "";
        if (c.ClientRequestsPerSecond is { Count: > 1 } clients)
        {
            double slowest = clients.Min(), fastest = clients.Max();
            text += string.Create(CultureInfo.InvariantCulture,
                $"\n  clients     {clients.Count}: the slowest {slowest:0} requests/s, the fastest {fastest:0} ({(slowest > 0 ? fastest / slowest : 0):0.00}x)");
        }
        if (c.OfferedRate is double offered)
        {
            double share = c.RequestsPerSecond / offered;
            text += FormattableString.Invariant($"\n  open loop   {offered:0} requests/s offered, {share:0.0%} achieved: ")
                + (c.Sustained == true ? "sustained" : "NOT SUSTAINED (client or server could not keep up; latencies are those of a growing queue)");
        }
        return text;
    }

    public static string Json(RunResults run)
    {
        var (c, l, env) = (run.Cases.Single(), run.Cases.Single().LatencyUs, run.Environment);
        return JsonSerializer.Serialize(new
        {
            c.Transport, Address = env.Options["address"], Options = CaseOptions.Without(c.Options, CaseOptions.ConnectScenario),
            Scenario = IsConnect(c) ? "connect" : "steady", c.Size, Count = Asked(c), Warmup = int.TryParse(env.Options["warmup"], CultureInfo.InvariantCulture, out int w) ? w : (int?)null,
            env.Placement, P50Us = l.P50, P90Us = l.P90, P99Us = l.P99, P999Us = l.P999, MaxUs = l.Max, MeanUs = l.Mean, MinUs = l.Min,
            Rps = c.RequestsPerSecond, Mbps = c.MegabytesPerSecond, Clients = (int)CaseOptions.Number(c.Options, "clients", 1),
            InFlight = (int)CaseOptions.Number(c.Options, "in_flight", 1), ClientRps = c.ClientRequestsPerSecond, c.OfferedRate, c.Sustained, c.Errors, AllocBytesPerOp = c.AllocatedBytesPerOp ?? 0, CpuUsPerOp = c.ClientCpuUsPerOp,
            ServerCpuUsPerOp = c.ServerCpuUsPerOp, ElapsedS = c.RequestsPerSecond > 0 ? Math.Round(c.Count / c.RequestsPerSecond, 3) : 0,
            env.Os, env.Runtime, Cpus = env.LogicalCpus, Timestamp = run.StartedAt,
        }, JsonOptions) + Environment.NewLine;
    }

    private static readonly JsonSerializerOptions JsonOptions = new()
    {
        PropertyNamingPolicy = JsonNamingPolicy.SnakeCaseLower,
        WriteIndented = true,
        Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping,
    };

    private static bool IsConnect(CaseResult c) => CaseOptions.Kind(c.Options) == CaseKind.ColdStart;

    /// <summary>The requests asked for: those measured and those lost.</summary>
    private static long Asked(CaseResult c) => c.Count + c.Errors;
}
