using System.Diagnostics;
using IpcBench.Kit.Processes;

namespace IpcBench.Tests;

/// <summary>
/// Debian's chromium, headless, on a page from disk: its DOM after the scripts ran, what its console said, a screenshot.
/// Each call has a private profile folder, a time limit, and leaves no browser process behind.
/// </summary>
internal static class HeadlessChromium
{
    private static readonly TimeSpan Limit = TimeSpan.FromSeconds(90);

    /// <summary>The browser, or null when it is not installed (test.sh and .ci/run install Debian's chromium).</summary>
    public static string? Path() =>
        new[] { "chromium", "chromium-browser", "google-chrome" }
            .SelectMany(name => (Environment.GetEnvironmentVariable("PATH") ?? "").Split(':').Select(dir => System.IO.Path.Combine(dir, name)))
            .FirstOrDefault(File.Exists);

    /// <summary>The page's DOM once loaded, and every console message it logged (an uncaught error among them).</summary>
    public static async Task<(string Dom, IReadOnlyList<string> Console)> DumpDomAsync(string page)
    {
        var (stdout, stderr) = await RunAsync("--dump-dom", new Uri(page).AbsoluteUri);
        return (stdout, stderr.Split('\n').Where(l => l.Contains(":CONSOLE", StringComparison.Ordinal)).ToList());
    }

    public static async Task ScreenshotAsync(string page, string png, int width, int height) =>
        await RunAsync($"--screenshot={png}", $"--window-size={width},{height}", "--hide-scrollbars", new Uri(page).AbsoluteUri);

    /// <summary>
    /// A screenshot of the page kept for a person to look at, <paramref name="name"/>/<paramref name="name"/>.png in the
    /// tests' output folder, checked to hold a picture (an empty page is a few KB); returns its path.
    /// </summary>
    public static async Task<string> KeptScreenshotAsync(string page, string name, int width, int height)
    {
        string png = System.IO.Path.Combine(AppContext.BaseDirectory, name, $"{name}.png");
        Directory.CreateDirectory(System.IO.Path.GetDirectoryName(png)!);
        File.Delete(png);
        await ScreenshotAsync(page, png, width, height);
        Assert.True(new FileInfo(png).Length > 10_000, $"the screenshot {png} is empty");
        return png;
    }

    private static async Task<(string Stdout, string Stderr)> RunAsync(params string[] args)
    {
        string browser = Path() ?? throw new InvalidOperationException("chromium is not installed: apt-get install chromium (test.sh does)");
        string profile = Directory.CreateTempSubdirectory("ipcbench-chromium-").FullName;
        var start = new ProcessStartInfo(browser)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        foreach (string arg in new[] { "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run",
            $"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0" }.Concat(args))
        {
            start.ArgumentList.Add(arg);
        }
        using var process = Process.Start(start)!;
        var stdout = process.StandardOutput.ReadToEndAsync();
        var stderr = process.StandardError.ReadToEndAsync();
        try
        {
            await process.WaitForExitAsync().WaitAsync(Limit);
            return (await stdout, await stderr);
        }
        finally
        {
            ProcessTree.Kill(process);
            await KillLeftoversAsync(profile);
            Directory.Delete(profile, recursive: true);
        }
    }

    /// <summary>Chromium's helper processes outlive the browser by a moment: wait for them (they name the profile), then kill what remains.</summary>
    private static async Task KillLeftoversAsync(string profile)
    {
        var deadline = DateTime.UtcNow + TimeSpan.FromSeconds(10);
        while (true)
        {
            var left = Directory.EnumerateDirectories("/proc").Select(dir => System.IO.Path.GetFileName(dir)).Where(pid => pid.All(char.IsAsciiDigit))
                .Where(pid => CommandLine(pid).Contains(profile, StringComparison.Ordinal)).ToList();
            if (left.Count == 0)
            {
                return;
            }
            if (DateTime.UtcNow > deadline)
            {
                foreach (string pid in left)
                {
                    try
                    {
                        Process.GetProcessById(int.Parse(pid)).Kill();
                    }
                    catch (Exception e) when (e is ArgumentException or InvalidOperationException)
                    {
                        // Gone meanwhile.
                    }
                }
                return;
            }
            await Task.Delay(100);
        }
    }

    private static string CommandLine(string pid)
    {
        try
        {
            return File.ReadAllText($"/proc/{pid}/cmdline");
        }
        catch (IOException)
        {
            return "";
        }
        catch (UnauthorizedAccessException)
        {
            return "";
        }
    }
}
