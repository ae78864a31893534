using Grpc.Core;
using Grpc.Net.Client;
using IpcBench.Contract;
using IpcBench.Kit;
using ProtoBuf.Grpc;
using ProtoBuf.Grpc.Client;

namespace IpcBench.Transports.Grpc;

/// <summary>
/// One GrpcChannel and the proxy protobuf-net.Grpc makes for <see cref="IEchoContract"/>, made once and reused: each
/// request is one unary call with a deadline. The data contract holds a byte array, so the payload is copied into one.
/// </summary>
internal sealed class GrpcCodeFirstConnection(GrpcChannel channel, string peer, int maxPayload) : IProbedConnection
{
    private readonly IEchoContract _client = channel.CreateGrpcService<IEchoContract>();

    public TimeSpan ReplyTimeout { get; set; }

    public async ValueTask<int> RequestAsync(ReadOnlyMemory<byte> request, Memory<byte> reply, CancellationToken ct = default)
    {
        FrameTooLargeException.ThrowIfTooLarge(request.Length, maxPayload);
        var options = new CallOptions(deadline: DateTime.UtcNow + ReplyTimeout, cancellationToken: ct);
        var call = _client.CallAsync(new EchoData { Payload = request.ToArray() }, new CallContext(options));
        return await GrpcMessages.ReplyAsync(call, static answer => answer.Payload, reply, peer, ReplyTimeout, ct).ConfigureAwait(false);
    }

    public ValueTask DisposeAsync()
    {
        channel.Dispose();
        return ValueTask.CompletedTask;
    }
}
