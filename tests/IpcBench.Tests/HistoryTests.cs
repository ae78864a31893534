using System.Diagnostics;
using System.Text.Json;
using System.Text.RegularExpressions;
using IpcBench.Reporting;
using IpcBench.Reporting.Comparison;
using IpcBench.Reporting.History;

namespace IpcBench.Tests;

/// <summary>
/// <c>ipcbench history</c> over kept gates of five commits of this repository, as the workflow's history branch holds
/// them: in the order measured, whatever the order named; the commit a gate judged slower marked in the data, the
/// markdown and the page, which Chromium renders.
/// </summary>
[Collection(Browser.Name)]
public sealed class HistoryTests(ITestOutputHelper output) : IDisposable
{
    private static readonly DateTimeOffset Start = new(2026, 11, 20, 6, 0, 0, TimeSpan.Zero);

    private readonly string _dir = Directory.CreateTempSubdirectory("ipcbench-history-").FullName;

    public void Dispose() => Directory.Delete(_dir, recursive: true);

    [Fact]
    public async Task Five_commits_in_the_order_measured_with_the_slower_one_marked_and_rendered()
    {
        var commits = Commits(6); // a gate's base and its head: five gates, each the next commit against the one before
        // The fourth gate's head is 30% slower than its base: its verdict, compare's own, must be "slower".
        double[] p50s = [20, 20.4, 19.8, 20.1, 26.1, 26];
        var gates = Enumerable.Range(1, 5).Select(i => KeepGate(i, commits[i - 1], commits[i], p50s[i - 1], p50s[i])).ToList();

        string html = Path.Combine(_dir, "history.html"), json = Path.Combine(_dir, "history.json");
        var (code, stdout, stderr) = await CliAsync(["history", gates[3], gates[0], gates[4], gates[2], gates[1], "--html", html, "--json", json]);
        Assert.True(code == 0, stderr);

        using var data = JsonDocument.Parse(File.ReadAllText(json));
        var runs = data.RootElement.GetProperty("runs").EnumerateArray().ToList();
        Assert.Equal(commits[1..], runs.Select(r => r.GetProperty("git_commit").GetString()));
        var tcp = Assert.Single(data.RootElement.GetProperty("cases").EnumerateArray());
        var verdicts = tcp.GetProperty("points").EnumerateArray().Select(p => p.GetProperty("verdict").GetString()).ToList();
        Assert.Equal("slower", verdicts[3]);
        Assert.Equal(4, verdicts.Count(v => v != "slower"));
        Assert.All(tcp.GetProperty("points").EnumerateArray(), p => Assert.True(p.GetProperty("low").GetDouble() <= p.GetProperty("p50").GetDouble()));
        Assert.Matches($@"\| {commits[4][..7]} \|[^\n]*\*\*slower \(\+", stdout);

        var (dom, console) = await HeadlessChromium.DumpDomAsync(html);
        Assert.Empty(console);
        Assert.Single(Regex.Matches(dom, "<svg "));
        Assert.Matches(@"<text[^>]*fill=""#C0392B""[^>]*>slower \+", dom); // the flag on the chart
        Assert.All(commits[1..], c => Assert.Contains($">{c[..7]}</text>", dom, StringComparison.Ordinal)); // each commit on the x axis
        output.WriteLine($"screenshot: {await HeadlessChromium.KeptScreenshotAsync(html, "history-html", 1100, 1000)}");
    }

    [Fact]
    public async Task A_change_of_machine_between_runs_is_said_where_it_happened()
    {
        var commits = Commits(2);
        string first = GateFixtures.SaveRounds(Path.Combine(_dir, "one"), commits[0], Start, 20);
        string second = GateFixtures.SaveRounds(Path.Combine(_dir, "two"), commits[1], Start.AddHours(1), 20, cpu: "Another CPU @ 2.0GHz");
        var (code, stdout, stderr) = await CliAsync(["history", first, second]);
        Assert.True(code == 0, stderr);
        Assert.Contains($"- before {commits[1][..7]} ({second}): machine differs", stdout, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("{\"cases\": [{\"key\": {\"transport\": \"tcp\", \"options\": \"\", \"size\": 1, \"placement\": \"same-core\"}, \"verdict\": \"worse\"}]}", "none of same, slower")]
    [InlineData("{\"cases\": [{\"key\": {\"transport\": \"tcp\"}, \"verdict\": \"same\"}]}", "no 'size'")]
    [InlineData("[1, 2", "not a gate's verdicts")]
    public async Task A_damaged_verdicts_file_is_one_line_that_names_it_and_writes_nothing(string text, string why)
    {
        var commits = Commits(2);
        string gate = KeepGate(1, commits[0], commits[1], 20, 20);
        File.WriteAllText(Path.Combine(gate, GateVerdicts.FileName), text);
        string html = Path.Combine(_dir, "history.html");
        var (code, stdout, stderr) = await CliAsync(["history", gate, "--html", html]);
        Assert.Equal(2, code);
        Assert.Empty(stdout);
        Assert.False(File.Exists(html));
        string line = Assert.Single(stderr.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        Assert.StartsWith($"ipcbench history: error: {Path.Combine(gate, GateVerdicts.FileName)}: ", line, StringComparison.Ordinal);
        Assert.Contains(why, line, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_verdicts_file_that_is_a_link_is_refused()
    {
        var commits = Commits(2);
        string gate = KeepGate(1, commits[0], commits[1], 20, 20);
        string verdicts = Path.Combine(gate, GateVerdicts.FileName), elsewhere = Path.Combine(_dir, "elsewhere.json");
        File.Move(verdicts, elsewhere);
        File.CreateSymbolicLink(verdicts, elsewhere);
        var (code, _, stderr) = await CliAsync(["history", gate]);
        Assert.Equal(2, code);
        Assert.Contains($"{verdicts} is a symbolic link, not a regular file: refused", stderr, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_folder_without_a_run_is_refused_in_one_line()
    {
        var (code, _, stderr) = await CliAsync(["history", _dir]);
        Assert.Equal(2, code);
        Assert.Matches("^ipcbench history: error: .* holds no results.json", stderr.Trim());
    }

    /// <summary>The <paramref name="number"/>th gate, measured an hour after the gate before.</summary>
    private string KeepGate(int number, string baseCommit, string headCommit, double baseP50, double headP50) =>
        GateFixtures.Keep(Path.Combine(_dir, $"gate-{number}"), baseCommit, headCommit, Start.AddHours(number), baseP50, headP50);

    /// <summary>
    /// The newest <paramref name="count"/> commits of this repository, oldest first. A shallow checkout holds fewer: the
    /// older ones are then made-up ids (the history reads a commit as a label; it never asks git), so that the test checks
    /// the same on any checkout.
    /// </summary>
    private static string[] Commits(int count)
    {
        var git = Process.Start(new ProcessStartInfo("git", ["rev-list", $"--max-count={count}", "HEAD"])
        {
            RedirectStandardOutput = true,
            WorkingDirectory = AppContext.BaseDirectory,
        })!;
        string[] commits = [.. git.StandardOutput.ReadToEnd().Split('\n', StringSplitOptions.RemoveEmptyEntries).Reverse()];
        git.WaitForExit();
        return [.. Enumerable.Range(0, count - commits.Length).Select(i => $"{i:x7}".PadRight(40, 'a')), .. commits];
    }

    private static async Task<(int Code, string Stdout, string Stderr)> CliAsync(string[] args)
    {
        using var cli = CliProcess.Start(args);
        var stdout = cli.Process.StandardOutput.ReadToEndAsync();
        var stderr = cli.Process.StandardError.ReadToEndAsync();
        await cli.Process.WaitForExitAsync().WaitAsync(TimeSpan.FromSeconds(60));
        return (cli.Process.ExitCode, await stdout, await stderr);
    }
}
