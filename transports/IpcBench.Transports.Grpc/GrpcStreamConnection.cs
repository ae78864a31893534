using Grpc.Core;
using Grpc.Net.Client;
using Ipcbench;
using IpcBench.Contract;
using IpcBench.Kit;

namespace IpcBench.Transports.Grpc;

/// <summary>
/// One <c>Echo.Stream</c> call held open for the connection's life: each request is one message written
/// and one read back. A request that fails or times out ends the call (gRPC cancels a stream as a whole),
/// so the connection refuses further requests rather than pair a late reply with a new request.
/// </summary>
internal sealed class GrpcStreamConnection : IProbedConnection
{
    private static readonly TimeSpan CloseTimeout = TimeSpan.FromSeconds(2);

    private readonly GrpcChannel _channel;
    private readonly AsyncDuplexStreamingCall<EchoMessage, EchoMessage> _call;
    private readonly string _peer;
    private readonly int _maxPayload;
    private readonly RequestTimeout _deadline = new();
    private string? _broken;

    public GrpcStreamConnection(GrpcChannel channel, string peer, int maxPayload)
    {
        _channel = channel;
        _peer = peer;
        _maxPayload = maxPayload;
        _call = new Echo.EchoClient(channel).Stream();
    }

    public TimeSpan ReplyTimeout { get; set; }

    public async ValueTask<int> RequestAsync(ReadOnlyMemory<byte> request, Memory<byte> reply, CancellationToken ct = default)
    {
        if (_broken is { } why)
        {
            throw new TransportException($"the stream to {_peer} has ended: {why}");
        }
        var message = GrpcMessages.Request(request, _maxPayload);
        var token = _deadline.Start(ReplyTimeout, ct);
        try
        {
            await _call.RequestStream.WriteAsync(message, token).ConfigureAwait(false);
            if (!await _call.ResponseStream.MoveNext(token).ConfigureAwait(false))
            {
                throw new TransportException($"{_peer} ended the stream");
            }
            return FrameTooLargeException.CopyReply(_call.ResponseStream.Current.Payload.Span, reply.Span);
        }
        catch (Exception e)
        {
            var failure = Failure(e, ct);
            _broken = failure.Message;
            throw failure;
        }
        finally
        {
            _deadline.Stop();
        }
    }

    private Exception Failure(Exception e, CancellationToken ct) => e switch
    {
        _ when ct.IsCancellationRequested => new OperationCanceledException(ct),
        RpcException rpc when !_deadline.Fired => GrpcMessages.Failure(rpc, _peer, ReplyTimeout),
        TransportException transport => transport,
        _ when _deadline.Fired => TransportErrors.NoReply(_peer, ReplyTimeout),
        _ => new TransportException($"the stream to {_peer} failed: {e.Message}", e),
    };

    public async ValueTask DisposeAsync()
    {
        if (_broken is null)
        {
            _broken = "the connection is closed";
            try
            {
                // Ending the request stream lets the server finish the call cleanly rather than see it cancelled.
                await _call.RequestStream.CompleteAsync().WaitAsync(CloseTimeout).ConfigureAwait(false);
            }
            catch (Exception e) when (e is RpcException or InvalidOperationException or TimeoutException)
            {
                // The call is over already, or the server is gone: disposing below cancels what is left.
            }
        }
        _call.Dispose();
        _deadline.Dispose();
        _channel.Dispose();
    }
}
