using System.Net;
using System.Net.Sockets;
using System.Text;

namespace IpcBench.Kit;

/// <summary>
/// Whether a broker answers, within a bound: the probe every brokered transport's
/// <see cref="Contract.ITransport.ProbeAsync"/> makes. A connect proves something listens there, not that it is the
/// broker; <see cref="GreetingAsync"/> also reads the first line it sends, for the brokers that say in it whether they
/// will take a client without credentials.
/// </summary>
public static class BrokerProbe
{
    /// <summary>The longest first line read: NATS's INFO is well under 1 KiB, a RESP error line shorter still.</summary>
    private const int MaxLine = 4096;

    public static async ValueTask<bool> AnswersAsync(EndPoint endpoint, TimeSpan bound, CancellationToken ct)
    {
        using var timeout = Bounded(bound, ct);
        using var socket = await ConnectAsync(endpoint, timeout.Token, ct).ConfigureAwait(false);
        return socket is not null;
    }

    /// <summary>
    /// Connects, sends <paramref name="request"/> if any, and reads the first line the broker sends, all within
    /// <paramref name="bound"/>. Line is null when nothing listens there, or when it sent no whole line in time.
    /// </summary>
    public static async ValueTask<(bool Answers, string? Line)> GreetingAsync(EndPoint endpoint, byte[]? request, TimeSpan bound, CancellationToken ct)
    {
        using var timeout = Bounded(bound, ct);
        using var socket = await ConnectAsync(endpoint, timeout.Token, ct).ConfigureAwait(false);
        if (socket is null)
        {
            return (false, null);
        }
        try
        {
            if (request is not null)
            {
                await socket.SendAsync(request, timeout.Token).ConfigureAwait(false);
            }
            return (true, await ReadLineAsync(socket, timeout.Token).ConfigureAwait(false));
        }
        catch (Exception e) when (e is SocketException || e is OperationCanceledException && !ct.IsCancellationRequested)
        {
            return (true, null);
        }
    }

    private static CancellationTokenSource Bounded(TimeSpan bound, CancellationToken ct)
    {
        var timeout = CancellationTokenSource.CreateLinkedTokenSource(ct);
        timeout.CancelAfter(bound);
        return timeout;
    }

    /// <summary>A connected socket, or null when nothing accepted the connection in time.</summary>
    private static async Task<Socket?> ConnectAsync(EndPoint endpoint, CancellationToken timeout, CancellationToken ct)
    {
        var socket = endpoint is UnixDomainSocketEndPoint
            ? new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified)
            : new Socket(SocketType.Stream, ProtocolType.Tcp);
        try
        {
            await socket.ConnectAsync(endpoint, timeout).ConfigureAwait(false);
            return socket;
        }
        catch (Exception e) when (e is SocketException || e is OperationCanceledException && !ct.IsCancellationRequested)
        {
            socket.Dispose();
            return null;
        }
        catch
        {
            socket.Dispose();
            throw;
        }
    }

    private static async Task<string?> ReadLineAsync(Socket socket, CancellationToken ct)
    {
        byte[] buffer = new byte[MaxLine];
        int filled = 0;
        while (filled < buffer.Length)
        {
            int read = await socket.ReceiveAsync(buffer.AsMemory(filled), ct).ConfigureAwait(false);
            if (read == 0)
            {
                break;
            }
            filled += read;
            if (buffer.AsSpan(0, filled).IndexOf((byte)'\n') is int end and >= 0)
            {
                return Encoding.ASCII.GetString(buffer, 0, end).TrimEnd('\r');
            }
        }
        return null;
    }
}
