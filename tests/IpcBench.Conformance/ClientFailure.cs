using System.Diagnostics;
using IpcBench.Contract;
using IpcBench.Harness.Measurement;

namespace IpcBench.Conformance;

/// <summary>What a client must do when its server goes away mid-run: fail with a <see cref="TransportException"/>, quickly.</summary>
public static class ClientFailure
{
    /// <summary>Sends until a request fails (10 s at most), and checks that it failed within 5 s.</summary>
    public static async Task WithinSecondsAsync(Exchange exchange)
    {
        var watch = Stopwatch.StartNew();
        await Assert.ThrowsAnyAsync<TransportException>(async () =>
        {
            while (watch.Elapsed < TimeSpan.FromSeconds(10))
            {
                await exchange.SendAsync(false, TestContext.Current.CancellationToken);
            }
        });
        Assert.True(watch.Elapsed < TimeSpan.FromSeconds(5), $"took {watch.Elapsed}");
    }
}
