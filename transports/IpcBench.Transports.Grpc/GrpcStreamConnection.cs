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
    /// <summary>The per-request timeout: one source, rearmed for each request and reset after it.</summary>
    private CancellationTokenSource _deadline = new();
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
        int length;
        var caller = ct.UnsafeRegister(static s => ((CancellationTokenSource)s!).Cancel(), _deadline);
        _deadline.CancelAfter(ReplyTimeout);
        try
        {
            await _call.RequestStream.WriteAsync(message, _deadline.Token).ConfigureAwait(false);
            if (!await _call.ResponseStream.MoveNext(_deadline.Token).ConfigureAwait(false))
            {
                throw new TransportException($"{_peer} ended the stream");
            }
            length = FrameTooLargeException.CopyReply(_call.ResponseStream.Current.Payload.Span, reply.Span);
        }
        catch (Exception e)
        {
            var failure = Failure(e, ct);
            _broken = failure.Message;
            throw failure;
        }
        finally
        {
            caller.Dispose();
        }
        if (!_deadline.TryReset())
        {
            // The timer fired just as the reply came: a fired source cannot be rearmed, so it is replaced.
            _deadline.Dispose();
            _deadline = new CancellationTokenSource();
        }
        return length;
    }

    private Exception Failure(Exception e, CancellationToken ct) => e switch
    {
        _ when ct.IsCancellationRequested => new OperationCanceledException(ct),
        RpcException rpc when !_deadline.IsCancellationRequested => GrpcMessages.Failure(rpc, _peer, ReplyTimeout),
        TransportException transport => transport,
        _ when _deadline.IsCancellationRequested => TransportErrors.NoReply(_peer, ReplyTimeout),
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
