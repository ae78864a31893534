namespace IpcBench.Harness.Results;

/// <summary>
/// A case's address options ("io=sync&amp;wait=spin"), in one spelling: keys sorted, so that runs
/// that wrote them in another order still match case for case.
/// </summary>
public static class CaseOptions
{
    public static string Normalize(string? query) => Join(Parse(query));

    public static IReadOnlyList<KeyValuePair<string, string>> Parse(string? query)
    {
        if (string.IsNullOrWhiteSpace(query))
        {
            return [];
        }
        return query.TrimStart('?')
            .Split('&', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)
            .Select(pair => pair.Split('=', 2))
            .Select(kv => new KeyValuePair<string, string>(kv[0].ToLowerInvariant(), kv.Length > 1 ? kv[1] : ""))
            .DistinctBy(kv => kv.Key)
            .OrderBy(kv => kv.Key, StringComparer.Ordinal)
            .ToList();
    }

    /// <summary>The options every one of <paramref name="optionSets"/> has, with the same value.</summary>
    public static string Common(IEnumerable<string> optionSets)
    {
        IEnumerable<KeyValuePair<string, string>>? common = null;
        foreach (string options in optionSets)
        {
            var pairs = Parse(options);
            common = common is null ? pairs : common.Intersect(pairs).ToList();
        }
        return Join(common ?? []);
    }

    /// <summary><paramref name="options"/> less those in <paramref name="common"/>.</summary>
    public static string Without(string options, string common) => Join(Parse(options).Except(Parse(common)));

    /// <summary>How a table names a case: the transport and the options that set it apart ("mmf wait=spin").</summary>
    public static string Label(string transport, string options, string common)
    {
        string rest = Without(options, common);
        return rest.Length == 0 ? transport : $"{transport} {rest.Replace('&', ' ')}";
    }

    public static string Join(IEnumerable<KeyValuePair<string, string>> pairs) =>
        string.Join("&", pairs.OrderBy(kv => kv.Key, StringComparer.Ordinal).Select(kv => $"{kv.Key}={kv.Value}"));
}
