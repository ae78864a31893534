using System.Net.Sockets;

namespace IpcBench.Contract;

/// <summary>Turns what the BCL throws into the contract's exceptions, with a message a person can act on.</summary>
public static class TransportErrors
{
    /// <summary>True for the exceptions that mean "this connection failed" rather than a bug.</summary>
    public static bool IsConnectionFailure(Exception e) =>
        e is IOException or SocketException or ObjectDisposedException or OperationCanceledException or TimeoutException;

    public static TransportException Translate(Exception e, string peer, TimeSpan timeout) => e switch
    {
        TransportException te => te,
        EndOfStreamException => new TransportException($"{peer} closed the connection"),
        OperationCanceledException or TimeoutException => NoReply(peer, timeout),
        _ when FindSocketError(e) is SocketError.TimedOut or SocketError.WouldBlock => NoReply(peer, timeout),
        _ when FindSocketError(e) is { } error => new TransportException($"connection to {peer} lost: {Describe(error)}", e),
        ObjectDisposedException => new TransportException($"connection to {peer} was closed", e),
        _ => new TransportException($"connection to {peer} failed: {e.Message}", e),
    };

    /// <summary>The one way a request that got no reply in time is reported, whatever the transport.</summary>
    public static TransportTimeoutException NoReply(string peer, TimeSpan timeout) =>
        new($"no reply from {peer} within {timeout.TotalMilliseconds:0} ms");

    public static TransportException ConnectFailed(Exception e, Uri address, TimeSpan timeout) => e switch
    {
        OperationCanceledException or TimeoutException =>
            new TransportTimeoutException($"could not connect to {address} within {timeout.TotalMilliseconds:0} ms"),
        _ when FindSocketError(e) is { } error => new TransportException($"could not connect to {address}: {Describe(error)}", e),
        _ => new TransportException($"could not connect to {address}: {e.Message}", e),
    };

    /// <summary>The exception at the bottom of <paramref name="e"/>'s chain: where a library wraps the cause, the cause's own words.</summary>
    public static Exception Innermost(Exception e) => e.InnerException is { } inner ? Innermost(inner) : e;

    private static SocketError? FindSocketError(Exception? e)
    {
        for (; e is not null; e = e.InnerException)
        {
            if (e is SocketException se)
            {
                return se.SocketErrorCode;
            }
        }
        return null;
    }

    private static string Describe(SocketError error) => error switch
    {
        SocketError.ConnectionRefused => "connection refused (is the server running?)",
        SocketError.AddressNotAvailable or SocketError.AddressFamilyNotSupported => "address not available",
        SocketError.ConnectionReset => "connection reset by the peer",
        SocketError.ConnectionAborted => "connection aborted",
        SocketError.Shutdown => "the connection was shut down",
        SocketError.HostUnreachable or SocketError.NetworkUnreachable => "host unreachable",
        _ => error.ToString(),
    };
}
