using System.Globalization;

namespace IpcBench.Cli;

/// <summary>A mistake in how the command was called: reported in one line with exit code 2.</summary>
public sealed class UsageException(string message) : Exception(message);

/// <summary>
/// <c>--name value</c> options and <c>--flag</c> switches of one verb. Unknown, repeated or
/// value-less options are errors, so that a typo never silently falls back to a default.
/// </summary>
public sealed class Arguments
{
    private readonly Dictionary<string, string?> _values = new(StringComparer.Ordinal);

    private Arguments()
    {
    }

    public static Arguments Parse(IReadOnlyList<string> args, IReadOnlyCollection<string> options, IReadOnlyCollection<string> flags)
    {
        var parsed = new Arguments();
        for (int i = 0; i < args.Count; i++)
        {
            string arg = args[i];
            string? inlineValue = null;
            if (arg.StartsWith("--", StringComparison.Ordinal) && arg.IndexOf('=') is int eq and > 0)
            {
                inlineValue = arg[(eq + 1)..];
                arg = arg[..eq];
            }
            string name = arg.StartsWith("--", StringComparison.Ordinal) ? arg[2..] : throw new UsageException($"unexpected argument '{arg}'");
            if (parsed._values.ContainsKey(name))
            {
                throw new UsageException($"--{name} is given twice");
            }
            if (flags.Contains(name))
            {
                parsed._values[name] = inlineValue is null ? null : throw new UsageException($"--{name} takes no value");
            }
            else if (options.Contains(name))
            {
                string? value = inlineValue ?? (i + 1 < args.Count ? args[++i] : null);
                parsed._values[name] = string.IsNullOrEmpty(value) ? throw new UsageException($"--{name} needs a value") : value;
            }
            else
            {
                throw new UsageException($"unknown option --{name}");
            }
        }
        return parsed;
    }

    public bool Has(string name) => _values.ContainsKey(name);

    public string? Get(string name) => _values.GetValueOrDefault(name);

    public string Require(string name) => Get(name) ?? throw new UsageException($"--{name} is required");

    public int GetInt(string name, int defaultValue, int min, int max = int.MaxValue)
    {
        string? text = Get(name);
        if (text is null)
        {
            return defaultValue;
        }
        if (!int.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out int value) || value < min || value > max)
        {
            throw new UsageException($"--{name} must be a whole number from {min} to {max}, not '{text}'");
        }
        return value;
    }

    /// <summary>A byte size: "100", "1KB" or "1K" (1,024 B), "1MB" (1,048,576 B).</summary>
    public int GetSize(string name, int defaultValue, int max)
    {
        string? text = Get(name);
        return text is null ? defaultValue : ParseSize(text, max) ?? throw new UsageException(
            $"--{name} must be a size from 0 to {max} B such as 1, 1KB or 100KB, not '{text}'");
    }

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
        return long.TryParse(t, NumberStyles.None, CultureInfo.InvariantCulture, out long n) && n * scale <= max ? (int)(n * scale) : null;
    }

    public Uri? GetUri(string name)
    {
        string? text = Get(name);
        if (text is null)
        {
            return null;
        }
        return Uri.TryCreate(text, UriKind.Absolute, out var uri)
            ? uri
            : throw new UsageException($"--{name} must be an absolute URI such as tcp://127.0.0.1:5000, not '{text}'");
    }
}

/// <summary>What was asked cannot run on this machine or transport: reported with exit code 3.</summary>
public sealed class UnsupportedException(string message) : Exception(message);
