using System.Globalization;

namespace IpcBench.Contract.Options;

/// <summary>The quantities options and arguments are written in: durations ("250ms", "2s", "10m") and byte sizes ("1KB").</summary>
public static class Quantities
{
    /// <summary>"250ms", "2s", "10m" (or "10min"), "1h" or a bare number of milliseconds, above zero.</summary>
    public static bool TryParseDuration(string text, out TimeSpan duration)
    {
        string v = text.Trim().ToLowerInvariant();
        double scale = 1; // milliseconds without a unit
        foreach (var (unit, ms) in DurationUnits)
        {
            if (v.EndsWith(unit, StringComparison.Ordinal))
            {
                (v, scale) = (v[..^unit.Length], ms);
                break;
            }
        }
        // At most int.MaxValue ms (24.8 days), the longest wait a timer or a socket timeout takes; "1e20" would overflow TimeSpan.
        bool ok = double.TryParse(v, NumberStyles.Float, CultureInfo.InvariantCulture, out double n) && n > 0 && n * scale <= MaxDurationMs;
        duration = ok ? TimeSpan.FromMilliseconds(n * scale) : default;
        return ok;
    }

    private const double MaxDurationMs = int.MaxValue;

    /// <summary>A duration's units and their milliseconds, each before any that ends it ("ms" before "s").</summary>
    private static readonly (string Unit, double Ms)[] DurationUnits = [("ms", 1), ("min", 60_000), ("s", 1000), ("m", 60_000), ("h", 3_600_000)];

    /// <summary>
    /// A timeout as the whole milliseconds a socket option takes: rounded up, so that a timeout under 1 ms is 1 ms,
    /// never 0, which SO_RCVTIMEO reads as no timeout at all and ZMQ_RCVTIMEO as none to wait.
    /// </summary>
    public static int WholeMilliseconds(TimeSpan timeout) => (int)Math.Clamp(Math.Ceiling(timeout.TotalMilliseconds), 1, MaxDurationMs);

    /// <summary>As <see cref="TryParseDuration"/>, or an <see cref="ArgumentException"/> naming <paramref name="name"/>.</summary>
    public static TimeSpan ParseDuration(string name, string text) => TryParseDuration(text, out var d)
        ? d
        : throw new ArgumentException($"{name} must be a positive duration such as 500ms, 2s or 10m, not '{text}'");

    /// <summary>A byte size: "100", "1KB" or "1K" (1,024 B), "1MB" (1,048,576 B); null when malformed or over <paramref name="max"/>.</summary>
    public static int? ParseSize(string text, int max)
    {
        string t = text.Trim().ToUpperInvariant();
        long scale = 1;
        foreach (var (suffix, factor) in new[] { ("KB", 1024L), ("K", 1024L), ("MB", 1024L * 1024), ("M", 1024L * 1024), ("B", 1L) })
        {
            if (t.EndsWith(suffix, StringComparison.Ordinal))
            {
                t = t[..^suffix.Length];
                scale = factor;
                break;
            }
        }
        // n <= max / scale, not n * scale <= max: the product of a long that big would overflow.
        return long.TryParse(t, NumberStyles.None, CultureInfo.InvariantCulture, out long n) && n <= max / scale ? (int)(n * scale) : null;
    }
}
