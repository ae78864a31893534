using System.Globalization;
using IpcBench.Harness.Results;

namespace IpcBench.Reporting.Writers;

/// <summary>How reports print figures: invariant culture, units people use, "-" for a figure that was not measured.</summary>
public static class Units
{
    public const string Missing = "-";

    /// <summary>Payload sizes in binary units, as the CLI takes them: 1 B, 1 KB (1,024 B), 100 KB.</summary>
    public static string Size(int bytes) => bytes switch
    {
        >= 1024 * 1024 when bytes % (1024 * 1024) == 0 => $"{bytes / (1024 * 1024)} MB",
        >= 1024 when bytes % 1024 == 0 => $"{bytes / 1024} KB",
        _ => $"{bytes} B",
    };

    /// <summary>Microseconds: a hundredth below 1 us (the in-process baselines live there), a tenth below 1,000, whole above.</summary>
    public static string Us(double us) => us < 1 ? F(us, "0.0#") : us < 1000 ? F(us, "0.0") : F(us, "#,0");

    /// <summary>A case's median and tail in one phrase, as every line about one case says them: "p50 17.2 us, p99 31.0 us".</summary>
    public static string Latency(LatencyFigures us) => $"p50 {Us(us.P50)} us, p99 {Us(us.P99)} us";

    public static string Rate(double perSecond) => F(perSecond, "#,0");

    /// <summary>A rate for an axis, where a panel's margin has room for four characters: "950", "12k", "3.5M".</summary>
    public static string CompactRate(double perSecond) => perSecond switch
    {
        >= 1e6 => F(perSecond / 1e6, "0.#") + "M",
        >= 1e3 => F(perSecond / 1e3, "0.#") + "k",
        _ => F(perSecond, "0.#"),
    };

    public static string Megabytes(double? mbps) => mbps is double v ? F(v, v < 100 ? "0.0#" : "#,0") : Missing;

    public static string Cpu(double? us) => us is double v ? F(v, "#,0.0") : Missing;

    public static string Bytes(double? bytes) => bytes is double v ? F(v, "#,0.#") : Missing;

    public static string Count(long n) => F(n, "#,0");

    /// <summary>A relative change, signed: "+12.3%", "-4.0%".</summary>
    public static string Change(double fraction) =>
        double.IsFinite(fraction) ? (fraction >= 0 ? "+" : "") + F(fraction * 100, "0.0") + "%" : Missing;

    /// <summary>A multiple: "2.3x", "0.85x".</summary>
    public static string Ratio(double ratio) => double.IsFinite(ratio) ? F(ratio, ratio < 1 ? "0.00" : ratio < 10 ? "0.0" : "#,0") + "x" : Missing;

    public static string PValue(double p) => p < 0.001 ? "<0.001" : F(p, "0.000");

    /// <summary>A plain number as results.json and CSV hold it (shortest round-trip form).</summary>
    public static string Raw(double value) => value.ToString("R", CultureInfo.InvariantCulture);

    private static string F(double value, string format) => value.ToString(format, CultureInfo.InvariantCulture);
}
