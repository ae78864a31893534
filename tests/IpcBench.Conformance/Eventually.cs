namespace IpcBench.Conformance;

/// <summary>Waits, with a bound, for what another process reports asynchronously (its stderr, say).</summary>
public static class Eventually
{
    public static async Task ContainsAsync(string expected, Func<string> actual, double seconds = 5)
    {
        var deadline = DateTime.UtcNow.AddSeconds(seconds);
        while (!actual().Contains(expected, StringComparison.Ordinal) && DateTime.UtcNow < deadline)
        {
            await Task.Delay(50);
        }
        Assert.Contains(expected, actual());
    }
}
