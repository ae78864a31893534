using System.Net.Sockets;
using IpcBench.Contract;
using IpcBench.Kit;
using IpcBench.Transports.Thrift.Generated;
using Thrift;
using Thrift.Protocol;
using Thrift.Transport;

namespace IpcBench.Transports.Thrift;

/// <summary>
/// One generated <see cref="EchoService.Client"/> on one framed transport, kept: each request is <c>EchoAsync(payload)</c>.
/// The request travels as an array of its own and the reply arrives as one: these allocations, and the args and result
/// structs around them, are Thrift's, and the benchmark reports them. A call carries one request at a time (Thrift
/// matches a reply by order, its sequence id only checked), so a request that fails or times out ends the connection:
/// a late reply would be read as the next request's.
/// </summary>
internal sealed class ThriftConnection(EchoService.Client client, string peer, int maxPayload, TimeSpan timeout) : IConnection
{
    private readonly RequestTimeout _deadline = new();
    private bool _broken;

    public async ValueTask<int> RequestAsync(ReadOnlyMemory<byte> request, Memory<byte> reply, CancellationToken ct = default)
    {
        FrameTooLargeException.ThrowIfTooLarge(request.Length, maxPayload);
        if (_broken)
        {
            throw new TransportException($"connection to {peer} was closed: an earlier request on it failed");
        }
        byte[] answer;
        try
        {
            answer = await client.EchoAsync(request.ToArray(), _deadline.Start(timeout, ct)).ConfigureAwait(false);
        }
        catch (Exception e) when (!ct.IsCancellationRequested && IsFailure(e))
        {
            _broken = true;
            client.Dispose(); // closes the socket or pipe
            throw e switch
            {
                OperationCanceledException => TransportErrors.NoReply(peer, timeout),
                TApplicationException => new TransportException($"{peer} refused the call: {e.Message}", e),
                _ => TransportErrors.Translate(e.InnerException is SocketException inner ? inner : e, peer, timeout),
            };
        }
        finally
        {
            _deadline.Stop();
        }
        return FrameTooLargeException.CopyReply(answer, reply.Span);
    }

    private static bool IsFailure(Exception e) => e is TException || TransportErrors.IsConnectionFailure(e);

    public ValueTask DisposeAsync()
    {
        _broken = true;
        client.Dispose();
        _deadline.Dispose();
        return ValueTask.CompletedTask;
    }
}
