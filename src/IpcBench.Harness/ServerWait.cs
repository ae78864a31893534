using IpcBench.Contract;
using IpcBench.Kit;

namespace IpcBench.Harness;

/// <summary>
/// Connecting to a server that may still be starting elsewhere (another container, a pod): connect attempts are retried
/// until one succeeds or the patience is spent, so a client need not be started after its server is known to be ready
/// (a health check polled beside a benchmark would cost the CPU it measures).
/// </summary>
public static class ServerWait
{
    private static readonly TimeSpan RetryInterval = TimeSpan.FromMilliseconds(250);

    /// <summary>How long one probe of a broker may take: a loopback connect answers in microseconds, a busy machine's in milliseconds.</summary>
    public static readonly TimeSpan ProbeBound = TimeSpan.FromSeconds(1);

    /// <summary>
    /// Why <paramref name="transport"/> does not run here once <paramref name="patience"/> is spent, or null as soon as it
    /// does: what it needs (a broker booting in another container) may still be coming.
    /// </summary>
    /// <param name="address">The server the run will use (a brokered transport's broker); null: the configured one.</param>
    public static async ValueTask<string?> UnsupportedReasonAsync(ITransport transport, Uri? address, TimeSpan patience, CancellationToken ct)
    {
        if (ClientRuntime.Refuses(transport) is { } notInThisBuild)
        {
            return notInThisBuild; // no patience brings it
        }
        var deadline = DateTime.UtcNow + patience;
        string? reason;
        while ((reason = await transport.ProbeAsync(address, ProbeBound, ct).ConfigureAwait(false)) is not null && DateTime.UtcNow + RetryInterval < deadline)
        {
            await Task.Delay(RetryInterval, ct).ConfigureAwait(false);
        }
        return reason;
    }

    /// <summary>A connection to <paramref name="address"/>; with a zero <paramref name="patience"/>, a single attempt.</summary>
    public static async ValueTask<IConnection> ConnectAsync(ITransport transport, Uri address, TimeSpan patience, CancellationToken ct)
    {
        var deadline = DateTime.UtcNow + patience;
        for (int attempt = 1; ; attempt++)
        {
            try
            {
                return await transport.ConnectAsync(address, ct).ConfigureAwait(false);
            }
            catch (TransportException e) when (DateTime.UtcNow + RetryInterval < deadline)
            {
                if (attempt == 1)
                {
                    Log.Warn($"{e.Message}; waiting up to {patience.TotalSeconds:0} s for the server");
                }
                await Task.Delay(RetryInterval, ct).ConfigureAwait(false);
            }
        }
    }
}
