using IpcBench.Contract;

namespace IpcBench.Kit.Streams;

/// <summary>The accept loop every server over an <see cref="IStreamListener"/> runs.</summary>
public static class AcceptLoop
{
    /// <summary>
    /// The listen backlog of the socket listeners, Kestrel's default: a burst of clients (a load run's, or a crowd of
    /// hostile ones) waits to be accepted instead of being refused (a full Unix socket backlog refuses at once).
    /// </summary>
    public const int Backlog = 512;

    /// <summary>
    /// Hands each accepted stream to <paramref name="serve"/> until <paramref name="stopping"/> is cancelled;
    /// a failed accept (a client that hung up half-way) is a line on stderr, not the end of the server.
    /// </summary>
    public static async Task RunAsync(IStreamListener listener, Action<Stream> serve, CancellationToken stopping)
    {
        while (!stopping.IsCancellationRequested)
        {
            Stream stream;
            try
            {
                stream = await listener.AcceptAsync(stopping).ConfigureAwait(false);
            }
            catch (Exception) when (stopping.IsCancellationRequested)
            {
                return;
            }
            catch (Exception e) when (TransportErrors.IsConnectionFailure(e))
            {
                Log.Warn($"accept failed on {listener.Address}: {e.Message}");
                continue;
            }
            serve(stream);
        }
    }
}
