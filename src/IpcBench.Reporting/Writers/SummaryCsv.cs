using System.Text;

namespace IpcBench.Reporting.Writers;

/// <summary>summary.csv: one row per case with every figure, for spreadsheets and scripts (RFC 4180 quoting, LF line ends, invariant numbers, empty for not measured).</summary>
public static class SummaryCsv
{
    public const string FileName = "summary.csv";

    private static readonly string[] Header =
    [
        "run_id", "transport", "options", "size", "placement", "count", "errors",
        "min_us", "p50_us", "p90_us", "p99_us", "p999_us", "max_us", "mean_us",
        "requests_per_second", "client_cpu_us_per_op", "server_cpu_us_per_op", "allocated_bytes_per_op",
    ];

    public static string Render(RunResults run)
    {
        var csv = new StringBuilder();
        Line(csv, Header);
        foreach (var c in run.Cases)
        {
            var l = c.LatencyUs;
            Line(csv,
            [
                run.Id, c.Transport, CaseOptions.Normalize(c.Options), Units.Raw(c.Size), c.Placement, Units.Raw(c.Count), Units.Raw(c.Errors),
                Units.Raw(l.Min), Units.Raw(l.P50), Units.Raw(l.P90), Units.Raw(l.P99), Units.Raw(l.P999), Units.Raw(l.Max), Units.Raw(l.Mean),
                Units.Raw(c.RequestsPerSecond), Units.Raw(c.ClientCpuUsPerOp), Optional(c.ServerCpuUsPerOp), Optional(c.AllocatedBytesPerOp),
            ]);
        }
        return csv.ToString();
    }

    private static string Optional(double? value) => value is double v ? Units.Raw(v) : "";

    private static void Line(StringBuilder csv, IEnumerable<string> fields) =>
        csv.Append(string.Join(",", fields.Select(Field))).Append('\n');

    /// <summary>
    /// A field as RFC 4180 quotes it; a text a spreadsheet would run as a formula (one that begins with =, +, -, @, a tab
    /// or a carriage return: OWASP's "CSV injection") is given a leading apostrophe, so it shows as the text it is.
    /// </summary>
    private static string Field(string value)
    {
        if (value.Length > 0 && "=+-@\t\r".Contains(value[0]))
        {
            value = "'" + value;
        }
        return value.AsSpan().IndexOfAny(",\"\r\n") >= 0 ? "\"" + value.Replace("\"", "\"\"", StringComparison.Ordinal) + "\"" : value;
    }
}
