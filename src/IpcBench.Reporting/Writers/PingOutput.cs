using System.Globalization;

namespace IpcBench.Reporting.Writers;

/// <summary>
/// What <c>ipcbench ping</c> prints, made from the run's one case as results.json holds it (which <c>--json</c> writes
/// as it is).
/// </summary>
public static class PingOutput
{
    public static string Text(RunResults run)
    {
        var (c, address) = (run.Cases.Single(), run.Environment.Options["address"]);
        var l = c.LatencyUs;
        string options = (c.Key with { Scenario = CaseKey.Steady }).Options;
        return string.Create(CultureInfo.InvariantCulture, $"""
            {c.Transport} {c.Size} B x {Asked(c)}{(IsConnect(c) ? " connect + request + close cycles" : "")} (placement {run.Environment.Placement}{(options.Length > 0 ? ", " + options : "")}) to {address}
              latency us  p50 {l.P50:0.0}  p90 {l.P90:0.0}  p99 {l.P99:0.0}  p99.9 {l.P999:0.0}  max {l.Max:0.0}  mean {l.Mean:0.0}
              throughput  {c.RequestsPerSecond:0} requests/s, {c.MegabytesPerSecond ?? 0:0.###} MB/s, {c.Errors} errors{Load(c)}
              client      {c.ClientCpuUsPerOp:0.0} us CPU and {c.AllocatedBytesPerOp ?? 0:0.#} B allocated per request{Parts(c.Anatomy?.Client)}
              server      {(c.ServerCpuUsPerOp is double s ? $"{s:0.0} us CPU per request" : "CPU not reported (not an ipcbench server?)")}{Parts(c.Anatomy?.Server)}{WarmUp(c.WarmUp)}

            """);
    }

    /// <summary>The warm-up's line: how long it took, and whether the JIT was done or the case was measured with it at work.</summary>
    private static string WarmUp(WarmUpFigures? w) => w is null ? "" : string.Create(CultureInfo.InvariantCulture,
        $"\n  warm-up     {w.AskedMs:0} ms as asked, then {w.JitWaitMs:0} ms ")
        + (w.JitSettled ? "until the JIT was done" : "waiting for the JIT: NOT DONE at the bound (the case was measured with it at work)");

    /// <summary>"; 11.5 user + 10.2 system, 0.74 + 0.28 context switches, 30.4 us runnable wait, 7 threads ran", or nothing.</summary>
    private static string Parts(SideAnatomy? side) => side is null ? "" : string.Create(CultureInfo.InvariantCulture,
        $"; {side.UserUs:0.0} user + {side.SystemUs:0.0} system")
        + (side.VoluntarySwitches is double v && side.InvoluntarySwitches is double i ? FormattableString.Invariant($", {v:0.00} + {i:0.00} context switches") : "")
        + (side.RunnableWaitUs is double wait ? FormattableString.Invariant($", {wait:0.0} us runnable wait") : "")
        + (side.ThreadsRan is int threads ? FormattableString.Invariant($", {threads} threads ran") : "");

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

    private static bool IsConnect(CaseResult c) => c.Key.Scenario == CaseKey.Connect;

    /// <summary>The requests asked for: those measured and those lost.</summary>
    private static long Asked(CaseResult c) => c.Count + c.Errors;
}
