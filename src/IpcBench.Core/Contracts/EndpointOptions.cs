using System.Globalization;
using System.Web;

namespace IpcBench.Core;

/// <summary>How a blocking wait is done on the client and in each server session.</summary>
public enum IoMode
{
    /// <summary>Blocking calls on a dedicated thread: the fewest thread hops.</summary>
    Sync,
    /// <summary>Async calls through the thread pool, as most .NET services do.</summary>
    Async,
}

/// <summary>
/// The options every address may carry in its query string, e.g. <c>tcp://127.0.0.1:5000?io=async&amp;timeout=2s</c>.
/// A transport may accept more keys of its own; an unknown key is an error, never silently ignored.
/// </summary>
/// <param name="Io">Blocking (<c>io=sync</c>, the default) or async I/O.</param>
/// <param name="RequestTimeout">How long a request or reply may take (<c>timeout=</c>, default 10 s).</param>
/// <param name="ConnectTimeout">How long connecting may take (<c>connect_timeout=</c>, default 5 s).</param>
public sealed record EndpointOptions(IoMode Io, TimeSpan RequestTimeout, TimeSpan ConnectTimeout)
{
    public static readonly EndpointOptions Default = new(IoMode.Sync, TimeSpan.FromSeconds(10), TimeSpan.FromSeconds(5));

    private static readonly string[] CommonKeys = ["io", "timeout", "connect_timeout"];

    /// <summary>The variants of a transport whose only choice is the I/O mode.</summary>
    public static readonly IReadOnlyList<string> IoVariants = ["io=sync", "io=async"];

    /// <summary>
    /// Whether <c>io</c> means anything to <paramref name="transport"/>: true for the socket and pipe
    /// transports; the others (a library's or a framework's own threads, shared memory) wait their own way.
    /// </summary>
    public static bool HasIoModes(ITransport transport) => transport.Variants.Intersect(IoVariants).Any();

    /// <summary>Parses the common options and rejects any key that neither they nor <paramref name="extraKeys"/> name.</summary>
    public static EndpointOptions Parse(Uri address, params string[] extraKeys)
    {
        var query = Query(address);
        foreach (string key in query.Keys)
        {
            if (!CommonKeys.Contains(key) && !extraKeys.Contains(key))
            {
                throw new ArgumentException(
                    $"unknown option '{key}' in {address}; known: {string.Join(", ", CommonKeys.Concat(extraKeys))}");
            }
        }
        return new EndpointOptions(
            query.TryGetValue("io", out var io) ? ParseIo(io) : Default.Io,
            query.TryGetValue("timeout", out var t) ? ParseDuration("timeout", t) : Default.RequestTimeout,
            query.TryGetValue("connect_timeout", out var c) ? ParseDuration("connect_timeout", c) : Default.ConnectTimeout);
    }

    /// <summary>The query string of <paramref name="address"/> as key/value pairs (keys lower-case).</summary>
    public static Dictionary<string, string> Query(Uri address) => ParseQuery(address.Query, address.ToString());

    /// <summary>Parses "key=value&amp;..." (a leading '?' is allowed) into pairs (keys lower-case).</summary>
    public static Dictionary<string, string> ParseQuery(string query, string? where = null)
    {
        var parsed = HttpUtility.ParseQueryString(query);
        var result = new Dictionary<string, string>(StringComparer.Ordinal);
        foreach (string? key in parsed.AllKeys)
        {
            if (key is null)
            {
                throw new ArgumentException($"malformed options '{query}'{(where is null ? "" : $" in {where}")}: expected key=value pairs");
            }
            result[key.ToLowerInvariant()] = parsed[key] ?? "";
        }
        return result;
    }

    /// <summary><paramref name="address"/> with the query key <paramref name="key"/> set to <paramref name="value"/>.</summary>
    public static Uri With(Uri address, string key, string value)
    {
        var query = Query(address);
        query[key] = value;
        // Rebuilt as text, not with UriBuilder, which would turn uds:///path into uds:/path.
        string pairs = string.Join("&", query.Select(kv => $"{Uri.EscapeDataString(kv.Key)}={Uri.EscapeDataString(kv.Value)}"));
        return new Uri($"{WithoutQuery(address).OriginalString}?{pairs}");
    }

    /// <summary><paramref name="address"/> with every option of <paramref name="query"/> ("io=async&amp;wait=spin") set.</summary>
    public static Uri WithAll(Uri address, string query) =>
        ParseQuery(query).Aggregate(address, (uri, option) => With(uri, option.Key, option.Value));

    /// <summary>The address without its query: what a server reports as bound.</summary>
    public static Uri WithoutQuery(Uri address)
    {
        string text = address.OriginalString;
        int query = text.IndexOf('?', StringComparison.Ordinal);
        return query < 0 ? address : new Uri(text[..query]);
    }

    public static IoMode ParseIo(string value) => value.ToLowerInvariant() switch
    {
        "sync" => IoMode.Sync,
        "async" => IoMode.Async,
        _ => throw new ArgumentException($"io must be 'sync' or 'async', not '{value}'"),
    };

    /// <summary>Parses "250ms", "2s" or a bare number of milliseconds.</summary>
    public static TimeSpan ParseDuration(string name, string value)
    {
        string v = value.Trim().ToLowerInvariant();
        double scale = 1;
        if (v.EndsWith("ms", StringComparison.Ordinal)) { v = v[..^2]; }
        else if (v.EndsWith('s')) { v = v[..^1]; scale = 1000; }
        if (!double.TryParse(v, NumberStyles.Float, CultureInfo.InvariantCulture, out double n) || n <= 0 || double.IsInfinity(n))
        {
            throw new ArgumentException($"{name} must be a positive duration such as 500ms or 2s, not '{value}'");
        }
        return TimeSpan.FromMilliseconds(n * scale);
    }
}
