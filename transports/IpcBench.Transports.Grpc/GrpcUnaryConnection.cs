using Grpc.Core;
using Grpc.Net.Client;
using Ipcbench;
using IpcBench.Contract;
using IpcBench.Kit;

namespace IpcBench.Transports.Grpc;

/// <summary>
/// One GrpcChannel and the generated client, made once and reused: each request is one unary
/// <c>Echo.Call</c> with a deadline, as a gRPC service calls another.
/// </summary>
internal sealed class GrpcUnaryConnection(GrpcChannel channel, string peer, int maxPayload) : IProbedConnection
{
    private readonly Echo.EchoClient _client = new(channel);

    public TimeSpan ReplyTimeout { get; set; }

    public async ValueTask<int> RequestAsync(ReadOnlyMemory<byte> request, Memory<byte> reply, CancellationToken ct = default)
    {
        var message = GrpcMessages.Request(request, maxPayload);
        using var call = _client.CallAsync(message, deadline: DateTime.UtcNow + ReplyTimeout, cancellationToken: ct);
        return await GrpcMessages.ReplyAsync(new ValueTask<EchoMessage>(call.ResponseAsync), static answer => answer.Payload.Memory, reply, peer, ReplyTimeout, ct).ConfigureAwait(false);
    }

    public ValueTask DisposeAsync()
    {
        channel.Dispose();
        return ValueTask.CompletedTask;
    }
}
