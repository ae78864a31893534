using IpcBench.Contract;
using IpcBench.Kit;
using Tmds.DBus.Protocol;

namespace IpcBench.Transports.DBus;

/// <summary>
/// The client: each request is one method call to the echo object, its reply awaited at most the reply timeout (the
/// library and the session bus set none). The library matches replies to calls by serial, so several may be in flight.
/// It completes a call on its reader thread, and the caller's code after the await runs there, as it does in any
/// application awaiting Tmds.DBus: a caller that blocks in that continuation stops every reply of the connection.
/// </summary>
internal sealed class DBusRequester(DBusConnection connection, string peer) : IProbedConnection
{
    private static readonly MessageValueReader<byte[]> ReadPayload = static (message, _) => message.GetBodyReader().ReadArrayOfByte();

    public TimeSpan ReplyTimeout { get; set; }

    public async ValueTask<int> RequestAsync(ReadOnlyMemory<byte> request, Memory<byte> reply, CancellationToken ct = default)
    {
        FrameTooLargeException.ThrowIfTooLarge(request.Length, DBusTransport.MaxPayload);
        byte[] answer;
        try
        {
            // A wait given up leaves the call pending in the library until its reply comes or the connection ends.
            answer = await connection.CallMethodAsync(Call(request.Span), ReadPayload).WaitAsync(ReplyTimeout, ct).ConfigureAwait(false);
        }
        catch (TimeoutException)
        {
            throw TransportErrors.NoReply(peer, ReplyTimeout);
        }
        catch (DBusErrorReplyException e)
        {
            throw new TransportException(e.ErrorName switch
            {
                "org.freedesktop.DBus.Error.ServiceUnknown" or "org.freedesktop.DBus.Error.NameHasNoOwner" =>
                    $"no server owns {EchoObject.BusName} on the bus at {peer}: it is gone, or was never there",
                "org.freedesktop.DBus.Error.NoReply" => $"the server left the bus at {peer} without replying",
                _ => $"{peer} answered {e.ErrorName}: {e.ErrorMessage}",
            }, e);
        }
        catch (Exception e) when (e is DBusExceptionBase or ObjectDisposedException)
        {
            throw new TransportException($"connection to the bus at {peer} failed: {e.Message}", e);
        }
        return FrameTooLargeException.CopyReply(answer, reply.Span);
    }

    private MessageBuffer Call(ReadOnlySpan<byte> payload)
    {
        var writer = connection.GetMessageWriter(); // a mutable ref struct: not a (readonly) using variable
        try
        {
            writer.WriteMethodCallHeader(EchoObject.BusName, EchoObject.ObjectPath, EchoObject.Interface, EchoObject.Method, EchoObject.Signature);
            writer.WriteArray(payload);
            return writer.CreateMessage();
        }
        finally
        {
            writer.Dispose();
        }
    }

    public ValueTask DisposeAsync()
    {
        connection.Dispose();
        return ValueTask.CompletedTask;
    }
}
