using System.Threading.Tasks.Sources;

namespace IpcBench.Transports.RabbitMQ;

/// <summary>
/// The awaitable for the one reply in flight, reused for every request (no allocation per request):
/// completed by the consumer callback, or failed by a timeout or a lost connection, whichever comes first.
/// </summary>
internal sealed class ReplySignal : IValueTaskSource<int>
{
    private ManualResetValueTaskSourceCore<int> _core = new() { RunContinuationsAsynchronously = true };
    private int _pending; // 1 while a request waits

    public ValueTask<int> Arm()
    {
        _core.Reset();
        Volatile.Write(ref _pending, 1);
        return new ValueTask<int>(this, _core.Version);
    }

    public void Complete(int length)
    {
        if (Interlocked.Exchange(ref _pending, 0) == 1)
        {
            _core.SetResult(length);
        }
    }

    public void Fail(Exception error)
    {
        if (Interlocked.Exchange(ref _pending, 0) == 1)
        {
            _core.SetException(error);
        }
    }

    public int GetResult(short token) => _core.GetResult(token);
    public ValueTaskSourceStatus GetStatus(short token) => _core.GetStatus(token);
    public void OnCompleted(Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags) =>
        _core.OnCompleted(continuation, state, token, flags);
}
