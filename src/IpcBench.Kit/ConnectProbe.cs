using IpcBench.Contract;

namespace IpcBench.Kit;

/// <summary>A connection whose reply timeout can be changed: <see cref="ConnectProbe"/> probes it with the connect timeout.</summary>
public interface IProbedConnection : IConnection
{
    TimeSpan ReplyTimeout { set; }
}

/// <summary>
/// For transports whose connect proves nothing (UDP, ZeroMQ, a broker, HTTP/2's lazy connection):
/// one empty request, answered within the connect timeout, is what shows that a server is there, so
/// that "nothing there" fails at connect, clearly, rather than as the first request's timeout.
/// </summary>
public static class ConnectProbe
{
    /// <summary>
    /// Sends the probe with <paramref name="connectTimeout"/> as the reply timeout, then leaves the connection
    /// with <paramref name="requestTimeout"/>; on failure disposes <paramref name="connection"/> and throws a
    /// connect error naming <paramref name="peer"/>.
    /// </summary>
    public static async ValueTask ProbeAsync(IProbedConnection connection, Uri peer, TimeSpan connectTimeout, TimeSpan requestTimeout, CancellationToken ct)
    {
        connection.ReplyTimeout = connectTimeout;
        try
        {
            await connection.RequestAsync(ReadOnlyMemory<byte>.Empty, Memory<byte>.Empty, ct).ConfigureAwait(false);
        }
        catch (Exception e)
        {
            // Whatever ends the probe (a cancellation, a library's own exception), the connection is not handed out.
            await connection.DisposeAsync().ConfigureAwait(false);
            throw e switch
            {
                TransportTimeoutException => new TransportTimeoutException($"could not connect to {peer}: no answer within {connectTimeout.TotalMilliseconds:0} ms"),
                TransportException => new TransportException($"could not connect to {peer}: {e.Message}", e),
                _ => e,
            };
        }
        connection.ReplyTimeout = requestTimeout;
    }
}
