using System.Diagnostics;

namespace IpcBench.Kit;

/// <summary>
/// A request timeout for waits that have none of their own (a blocking read on a pipe stream, a
/// reply that arrives through a library's callback): a timer calls <c>onExpired</c> when a request
/// outlives its deadline, which is expected to end the wait (close the stream, fail the reply).
/// Arming and disarming cost a timestamp and a store per request, and allocate nothing.
/// </summary>
public sealed class RequestDeadline : IDisposable
{
    private readonly Action _onExpired;
    private long _timeoutTicks;
    private readonly Timer _timer;
    private long _deadline; // Stopwatch ticks; 0 while no request is in flight
    private volatile bool _expired;

    public RequestDeadline(TimeSpan timeout, Action onExpired)
    {
        _onExpired = onExpired;
        _timeoutTicks = StopwatchTicks.From(timeout);
        var period = TimeSpan.FromMilliseconds(Math.Clamp(timeout.TotalMilliseconds / 4, 10, 1000));
        _timer = new Timer(_ => Check(), null, period, period);
    }

    /// <summary>The time a request may take from <see cref="Arm"/> on (the timer's period stays as first set).</summary>
    public TimeSpan Timeout
    {
        get => Stopwatch.GetElapsedTime(0, _timeoutTicks);
        set => _timeoutTicks = StopwatchTicks.From(value);
    }

    /// <summary>True once a request ran out of time (and <c>onExpired</c> ran).</summary>
    public bool Expired => _expired;

    public void Arm() => Volatile.Write(ref _deadline, Stopwatch.GetTimestamp() + _timeoutTicks);

    public void Disarm() => Volatile.Write(ref _deadline, 0);

    private void Check()
    {
        long deadline = Volatile.Read(ref _deadline);
        if (deadline != 0 && Stopwatch.GetTimestamp() > deadline && Interlocked.CompareExchange(ref _deadline, 0, deadline) == deadline)
        {
            _expired = true;
            _onExpired();
        }
    }

    public void Dispose() => _timer.Dispose();
}
