using IpcBench.Cli;

namespace IpcBench.Tests;

/// <summary>
/// Every option of every verb, given a value it cannot take, is refused before anything runs: exit 2 and one line on
/// stderr that names it, no stack trace. Found from the command tree, so a new option is covered as it comes.
/// </summary>
public class OptionValueTests
{
    /// <summary>Options whose value is any text (a path, a name): nothing to refuse at parse time.</summary>
    private static readonly HashSet<string> FreeText = ["--results", "--json", "--into", "--skipped", "--html", "--keep", "--image", "--vm-runtime"];

    /// <summary>Every option of every verb that takes a value, as (verb, option).</summary>
    private static IEnumerable<(string Verb, string Option)> OptionsTakingAValue() =>
        IpcbenchCommand.Create().Subcommands.Where(verb => !verb.Hidden).SelectMany(verb => verb.Options
            .Where(o => o.Arity.MaximumNumberOfValues > 0 && o.ValueType != typeof(bool) && !o.Hidden)
            .Select(o => (verb.Name, o.Name)));

    /// <summary>The options that can refuse a value: all of them but <see cref="FreeText"/>.</summary>
    public static TheoryData<string, string> ValuedOptions()
    {
        var data = new TheoryData<string, string>();
        foreach (var (verb, option) in OptionsTakingAValue().Where(o => !FreeText.Contains(o.Option)))
        {
            data.Add(verb, option);
        }
        return data;
    }

    [Theory]
    [MemberData(nameof(ValuedOptions))]
    public async Task A_value_an_option_cannot_take_exits_2_with_one_line_naming_the_option(string verb, string option)
    {
        // The verb's required options given well, so that the one error is the option's own.
        string build = Path.GetDirectoryName(Harness.Hosting.ServerCommand.Resolve().ExecutablePath)!;
        string[] required = verb is "ping" or "serve" && option != "--transport" ? ["--transport", "tcp"]
            : verb is "gate" ? [.. new[] { "--base", "--head" }.Where(o => o != option).SelectMany(o => new[] { o, build })]
            : [];
        string baseline = Path.Combine(DockerFilesTests.RepositoryRoot(), "results", "baseline");
        string[] arguments = verb is "compare" ? [baseline, baseline] : verb is "report" ? [baseline] : [];

        var (exit, stdout, stderr) = await CliTests.RunWithAsync(null, [verb, .. arguments, .. required, option, "no-such-value"]);

        Assert.True(exit == 2, $"exit {exit}: {stderr}");
        string line = Assert.Single(stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.Contains(option.TrimStart('-'), line); // '--wait' may be named as the transport's option 'wait'
        Assert.Empty(stdout);
    }

    [Fact]
    public void Every_option_named_free_text_exists()
    {
        var all = OptionsTakingAValue().Select(o => o.Option).ToHashSet();
        Assert.All(FreeText, option => Assert.Contains(option, all)); // a renamed option must leave this list too
    }
}
