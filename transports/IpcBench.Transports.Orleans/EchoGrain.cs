using IpcBench.Contract;
using Orleans.Concurrency;

namespace IpcBench.Transports.Orleans;

/// <summary>
/// The grain a client calls. <see cref="Immutable{T}"/> is how Orleans' documentation passes a byte array it should not
/// copy: without it the generated proxy copies the argument before sending and the silo the result before replying.
/// </summary>
public interface IEchoGrain : IGrainWithIntegerKey
{
    Task<Immutable<byte[]>> Echo(Immutable<byte[]> payload);
}

/// <summary>Answers with what the server's request handler makes of the request. Orleans' defaults: not reentrant, one call at a time.</summary>
public sealed class EchoGrain(RequestHandler handler) : Grain, IEchoGrain
{
    public Task<Immutable<byte[]>> Echo(Immutable<byte[]> payload) => Task.FromResult(handler.ReplyArray(payload.Value).AsImmutable());
}
