using System.Web;

namespace IpcBench.Contract.Options;

/// <summary>An address's query string, where its options travel: <c>tcp://127.0.0.1:5000?io=async&amp;timeout=2s</c>.</summary>
public static class AddressQuery
{
    /// <summary>The query string of <paramref name="address"/> as key/value pairs (keys lower-case).</summary>
    public static Dictionary<string, string> Of(Uri address) => Parse(address.Query, address.ToString());

    /// <summary>Parses "key=value&amp;..." (a leading '?' is allowed) into pairs (keys lower-case).</summary>
    public static Dictionary<string, string> Parse(string query, string? where = null)
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
    public static Uri With(Uri address, string key, string value) => With(address, new Dictionary<string, string> { [key] = value });

    /// <summary><paramref name="address"/> with each of <paramref name="options"/> set (replacing a value the address has).</summary>
    public static Uri With(Uri address, IEnumerable<KeyValuePair<string, string>> options)
    {
        var query = Of(address);
        foreach (var (key, value) in options)
        {
            query[key] = value;
        }
        if (query.Count == 0)
        {
            return WithoutQuery(address);
        }
        // Rebuilt as text, not with UriBuilder, which would turn uds:///path into uds:/path.
        return new Uri($"{WithoutQuery(address).OriginalString}?{Join(query)}");
    }

    /// <summary>Pairs as a query string ("io=async&amp;timeout=2s"), escaped as <see cref="Parse"/> reads them back.</summary>
    public static string Join(IEnumerable<KeyValuePair<string, string>> pairs) =>
        string.Join("&", pairs.Select(kv => $"{Uri.EscapeDataString(kv.Key)}={Uri.EscapeDataString(kv.Value)}"));

    /// <summary>The address without its query: what a server reports as bound.</summary>
    public static Uri WithoutQuery(Uri address)
    {
        string text = address.OriginalString;
        int query = text.IndexOf('?', StringComparison.Ordinal);
        return query < 0 ? address : new Uri(text[..query]);
    }
}
