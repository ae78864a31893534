using System.Net;
using System.Net.Sockets;

namespace IpcBench.Kit;

/// <summary>
/// Whether a broker answers: one connect to its endpoint within a bound, the probe every brokered transport's
/// <see cref="Contract.ITransport.ProbeAsync"/> makes. It proves something listens there, not that it is the broker.
/// </summary>
public static class BrokerProbe
{
    public static async ValueTask<bool> AnswersAsync(EndPoint endpoint, TimeSpan bound, CancellationToken ct)
    {
        using var socket = endpoint is UnixDomainSocketEndPoint
            ? new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified)
            : new Socket(SocketType.Stream, ProtocolType.Tcp);
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(ct);
        timeout.CancelAfter(bound);
        try
        {
            await socket.ConnectAsync(endpoint, timeout.Token).ConfigureAwait(false);
            return true;
        }
        catch (SocketException)
        {
            return false;
        }
        catch (OperationCanceledException) when (!ct.IsCancellationRequested)
        {
            return false;
        }
    }
}
