using System.Text.RegularExpressions;
using IpcBench.Reporting.Writers;

namespace IpcBench.Tests;

/// <summary>report.html opened as a reader would: from disk, in a real browser (headless Chromium), offline.</summary>
[Collection(Browser.Name)]
public sealed partial class HtmlReportTests(ITestOutputHelper output) : IDisposable
{
    private readonly string _dir = Directory.CreateTempSubdirectory("ipcbench-html-").FullName;

    public void Dispose() => Directory.Delete(_dir, recursive: true);

    [Fact]
    public void The_page_is_self_contained()
    {
        string html = HtmlReport.Render(RunFixtures.Bench(), ReportWriter.Charts(RunFixtures.Bench()));
        // Nothing to fetch: no src or href attribute, no url(...), no import; the only address is SVG's namespace name.
        Assert.DoesNotMatch(@"\b(src|href)\s*=", html);
        Assert.DoesNotContain("url(", html, StringComparison.Ordinal);
        Assert.DoesNotContain("@import", html, StringComparison.Ordinal);
        Assert.All(Addresses().Matches(html), m => Assert.Equal("http://www.w3.org/2000/svg", m.Value));
    }

    [Fact]
    public async Task The_page_renders_in_chromium_with_every_case_and_no_console_error()
    {
        var run = RunFixtures.Bench();
        ReportWriter.WriteAll(_dir, run);
        string page = Path.Combine(_dir, HtmlReport.FileName);

        var (dom, console) = await HeadlessChromium.DumpDomAsync(page);
        Assert.Empty(console);
        Assert.Contains("data-ready=\"true\"", dom, StringComparison.Ordinal); // the script ran to its end
        var rows = Rows().Matches(dom).Select(m => Tags().Replace(m.Groups[1].Value, "")).ToList();
        // Every case of the run is a row: the steady ones in the latency matrix, the cold starts and the loaded ones in theirs.
        foreach (string label in new[] { "tcp io=sync", "mmf io=sync wait=spin", "udp io=sync", "grpc" })
        {
            Assert.Contains(rows, r => r.StartsWith(label + " / ", StringComparison.Ordinal) || r == label);
        }
        Assert.Equal(run.Cases.Count, CaseRows(dom));
        Assert.Equal(ReportWriter.Charts(run).Count, Regex.Matches(dom, "<svg ").Count); // the charts, inline

        output.WriteLine($"screenshot: {await HeadlessChromium.KeptScreenshotAsync(page, "report-html", 1200, 4000)}");
    }

    [Fact]
    public async Task A_script_error_is_caught_by_the_console_check()
    {
        // The check above must be able to fail: a page whose script throws.
        string page = Path.Combine(_dir, "broken.html");
        File.WriteAllText(page, "<!DOCTYPE html><html><body><script>notDefinedAnywhere(); document.body.dataset.ready = 'true';</script></body></html>");
        var (dom, console) = await HeadlessChromium.DumpDomAsync(page);
        Assert.Contains(console, line => line.Contains("notDefinedAnywhere", StringComparison.Ordinal));
        Assert.DoesNotContain("data-ready", dom, StringComparison.Ordinal);
    }

    /// <summary>The rows that hold one case each: the cost table (a steady case a row), the cold starts and the cases under load.</summary>
    private static int CaseRows(string dom) =>
        new[] { "Cost per request", "Cold starts", "Under load" }.Sum(heading =>
        {
            int at = dom.IndexOf($"<h2>{heading}", StringComparison.Ordinal);
            Assert.True(at >= 0, $"no section {heading}");
            string table = dom[at..dom.IndexOf("</table>", at, StringComparison.Ordinal)];
            return Regex.Matches(table, "<tr>").Count - 1; // less the heading row
        });

    [GeneratedRegex(@"https?://[^""'\s<>)]+")]
    private static partial Regex Addresses();

    [GeneratedRegex(@"<tr><td>(.*?)</td>")]
    private static partial Regex Rows();

    [GeneratedRegex("<[^>]+>")]
    private static partial Regex Tags();
}

/// <summary>A browser takes both cores of a small machine for a moment: its tests run on their own, not beside the timing-sensitive ones.</summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class Browser
{
    public const string Name = "browser";
}
