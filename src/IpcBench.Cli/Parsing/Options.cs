using System.CommandLine;
using System.Globalization;
using IpcBench.Contract.Options;

namespace IpcBench.Cli.Parsing;

/// <summary>Options whose values are checked as they are parsed, with a message that names the option and what it takes.</summary>
internal static class Options
{
    public static Option<int> Int(string name, string description, int @default, int min, int max = int.MaxValue) =>
        Checked(name, description, "N", @default,
            text => (int.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out int n) && n >= min && n <= max, n),
            $"a whole number from {min} to {max}");

    /// <summary>A byte size: 1, 1KB (1,024 B), 100KB, 1MB.</summary>
    public static Option<int> Size(string name, string description, int @default, int max) =>
        Checked(name, description, "BYTES", @default, text => Quantities.ParseSize(text, max) is int n ? (true, n) : (false, 0),
            $"a size from 0 to {max} B such as 1, 1KB or 100KB");

    /// <summary>A byte size that has no default: null when not given.</summary>
    public static Option<int?> OptionalSize(string name, string description, int max) =>
        Checked<int?>(name, description, "BYTES", null, text => Quantities.ParseSize(text, max) is int n ? (true, n) : (false, null),
            $"a size from 0 to {max} B such as 1, 1KB or 100KB", showDefault: false);

    public static Option<TimeSpan> Duration(string name, string description) =>
        Checked(name, description, "DURATION", TimeSpan.Zero, text => (Quantities.TryParseDuration(text, out var d), d),
            "a positive duration such as 500ms, 2s or 10m", showDefault: false);

    /// <summary>A number of requests, or a duration: "1000" or "2s".</summary>
    public static Option<(int Count, TimeSpan Time)> CountOrDuration(string name, string description, int @default, int max) =>
        Checked(name, description, "N|DURATION", (@default, TimeSpan.Zero), text =>
            int.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out int n) ? (n <= max, (n, TimeSpan.Zero))
            : Quantities.TryParseDuration(text, out var d) ? (true, (0, d)) : (false, default),
            $"a number of requests from 0 to {max} or a duration such as 2s");

    /// <summary>A positive rate: 20000, or 20k for thousands.</summary>
    public static Option<double> Rate(string name, string description) =>
        Checked(name, description, "PER_SECOND", 0.0, text =>
        {
            bool thousands = text.EndsWith('k') || text.EndsWith('K');
            bool ok = double.TryParse(thousands ? text[..^1] : text, NumberStyles.AllowDecimalPoint, CultureInfo.InvariantCulture, out double r) && r > 0;
            return (ok && r * (thousands ? 1000 : 1) <= 1e9, r * (thousands ? 1000 : 1));
        }, "a positive rate in requests per second such as 20000 or 20k", showDefault: false);

    public static Option<Uri?> Uri(string name, string description) =>
        Checked<Uri?>(name, description, "URI", null, text => (System.Uri.TryCreate(text, UriKind.Absolute, out var uri), uri),
            "an absolute URI such as tcp://127.0.0.1:5000", showDefault: false);

    /// <summary>One of <paramref name="values"/>, offered for completion too.</summary>
    public static Option<string> Choice(string name, string description, string @default, params string[] values)
    {
        var option = Checked(name, description, string.Join('|', values), @default,
            text => (values.Contains(text, StringComparer.OrdinalIgnoreCase), text.ToLowerInvariant()),
            string.Join(", ", values.SkipLast(1)) + " or " + values[^1]);
        option.CompletionSources.Add(values);
        return option;
    }

    /// <summary>A comma-separated list ("tcp,uds", or the option given again), each item one that <paramref name="accepts"/>.</summary>
    public static Option<string[]> List(string name, string description, Func<string, bool> accepts, string expected) => new(name)
    {
        Description = description,
        HelpName = "LIST",
        CustomParser = result =>
        {
            string[] items = [.. result.Tokens.SelectMany(t => t.Value.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))];
            if (items.FirstOrDefault(item => !accepts(item)) is { } bad)
            {
                result.AddError($"{name} must list {expected}, not '{bad}'");
            }
            return items;
        },
    };

    /// <summary>An option whose one value <paramref name="parse"/> reads; when it cannot, the parse error says "NAME must be EXPECTED, not 'TEXT'".</summary>
    public static Option<T> Checked<T>(string name, string description, string helpName, T @default,
        Func<string, (bool Ok, T Value)> parse, string expected, bool showDefault = true) => new(name)
    {
        Description = description,
        HelpName = helpName,
        DefaultValueFactory = showDefault ? _ => @default : null,
        CustomParser = result =>
        {
            if (result.Tokens.Count == 0)
            {
                return @default;
            }
            string text = result.Tokens[0].Value;
            var (ok, value) = parse(text);
            if (!ok)
            {
                result.AddError($"{name} must be {expected}, not '{text}'");
            }
            return value;
        },
    };
}
