namespace IpcBench.Reporting.Writers;

/// <summary>The tables of the cases that are not the steady state: cold starts, and cases under load (clients, requests in flight, open loops).</summary>
public static class LoadTable
{
    /// <summary>How a case under load is named: the transport, its options but the load's and the scenario's, then the load in words.</summary>
    public static string Describe(CaseResult c, RunResults run)
    {
        string common = CaseOptions.Common(run.Cases.Select(x => x.Options));
        var load = CaseOptions.Parse(c.Options).ToDictionary();
        var words = new List<string>();
        string clients = load.GetValueOrDefault("clients", "1");
        words.Add(clients == "1" ? "1 client" : $"{clients} clients");
        if (load.TryGetValue("client_processes", out string? processes))
        {
            words.Add($"in {processes} processes");
        }
        if (load.TryGetValue("in_flight", out string? inFlight))
        {
            words.Add($"{inFlight} in flight");
        }
        if (c.OfferedRate is double rate)
        {
            words.Add($"{Units.Rate(rate)}/s offered");
        }
        string others = CaseOptions.Join(CaseOptions.Parse(CaseOptions.Without(c.Options, common))
            .Where(kv => kv.Key is not ("clients" or "client_processes" or "in_flight" or "rate" or "scenario")));
        string name = others.Length == 0 ? c.Transport : $"{c.Transport} {others.Replace('&', ' ')}";
        return $"{name}, {string.Join(", ", words)}";
    }

    internal static ReportSection ColdStarts(IReadOnlyList<CaseResult> cases)
    {
        var table = new Table("transport", "size", "p50 us", "p99 us", "connects/s", "client CPU us", "server CPU us");
        string common = CaseOptions.Common(cases.Select(c => c.Options));
        foreach (var c in cases)
        {
            table.Add(CaseOptions.Label(c.Transport, c.Options, common), Units.Size(c.Size), Units.Us(c.LatencyUs.P50), Units.Us(c.LatencyUs.P99),
                Units.Rate(c.RequestsPerSecond), Units.Cpu(c.ClientCpuUsPerOp), Units.Cpu(c.ServerCpuUsPerOp));
        }
        return new ReportSection("Cold starts: connect, one request, close", [], table);
    }

    internal static ReportSection UnderLoad(RunResults run, IReadOnlyList<CaseResult> cases)
    {
        var table = new Table("case", "size", "requests/s", "MB/s", "p50 us", "p99 us", "client spread", "sustained") { TextColumns = [7] };
        foreach (var c in cases)
        {
            string spread = c.ClientRequestsPerSecond is { Count: > 1 } each && each.Min() > 0 ? Units.Ratio(each.Max() / each.Min()) : Units.Missing;
            string sustained = c.Sustained switch { true => "yes", false => "**no**", null => Units.Missing };
            table.Add(Describe(c, run), Units.Size(c.Size), Units.Rate(c.RequestsPerSecond), Units.Megabytes(c.MegabytesPerSecond),
                Units.Us(c.LatencyUs.P50), Units.Us(c.LatencyUs.P99), spread, sustained);
        }
        return new ReportSection("Under load: requests/s over every client", [], table,
            ["Client spread: the fastest client's requests/s over the slowest's. Sustained: an open loop achieved at least 95% of its offered rate; when not, its latencies are a growing queue's."]);
    }
}
