namespace IpcBench.Cli.Commands;

/// <summary>Splits a command line into its operands (report DIR, compare A B) and its --options, which <see cref="Arguments"/> parses.</summary>
internal static class Operands
{
    /// <param name="valued">The options that take a value, so that their value is not taken for an operand.</param>
    public static (IReadOnlyList<string> Operands, IReadOnlyList<string> Options) Split(IReadOnlyList<string> args, IReadOnlyCollection<string> valued)
    {
        var operands = new List<string>();
        var options = new List<string>();
        for (int i = 0; i < args.Count; i++)
        {
            string arg = args[i];
            if (!arg.StartsWith("--", StringComparison.Ordinal))
            {
                operands.Add(arg);
                continue;
            }
            options.Add(arg);
            if (!arg.Contains('=') && valued.Contains(arg[2..]) && i + 1 < args.Count)
            {
                options.Add(args[++i]);
            }
        }
        return (operands, options);
    }

    /// <summary>Exactly <paramref name="names"/>.Length operands, or a usage error naming what is missing or extra.</summary>
    public static void Expect(IReadOnlyList<string> operands, params string[] names)
    {
        if (operands.Count < names.Length)
        {
            throw new UsageException($"{names[operands.Count]} is required");
        }
        if (operands.Count > names.Length)
        {
            throw new UsageException($"unexpected argument '{operands[names.Length]}'");
        }
    }
}
