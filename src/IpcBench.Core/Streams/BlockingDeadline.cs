using System.Diagnostics;

namespace IpcBench.Core.Streams;

/// <summary>
/// A timeout for blocking reads on streams that have none of their own (<see cref="Stream.CanTimeout"/>
/// is false, as for pipe streams): a timer closes the stream when a request outlives its deadline,
/// which ends the blocked read. Arming and disarming cost a timestamp and a store per request.
/// </summary>
internal sealed class BlockingDeadline : IDisposable
{
    private readonly Stream _stream;
    private readonly long _timeoutTicks;
    private readonly Timer _timer;
    private long _deadline; // Stopwatch ticks; 0 while no request is in flight
    private volatile bool _expired;

    public BlockingDeadline(Stream stream, TimeSpan timeout)
    {
        _stream = stream;
        _timeoutTicks = (long)(timeout.TotalSeconds * Stopwatch.Frequency);
        var period = TimeSpan.FromMilliseconds(Math.Clamp(timeout.TotalMilliseconds / 4, 10, 1000));
        _timer = new Timer(_ => Check(), null, period, period);
    }

    /// <summary>True once a request ran out of time (and the stream was closed).</summary>
    public bool Expired => _expired;

    public void Arm() => Volatile.Write(ref _deadline, Stopwatch.GetTimestamp() + _timeoutTicks);

    public void Disarm() => Volatile.Write(ref _deadline, 0);

    private void Check()
    {
        long deadline = Volatile.Read(ref _deadline);
        if (deadline != 0 && Stopwatch.GetTimestamp() > deadline)
        {
            _expired = true;
            _stream.Dispose();
        }
    }

    public void Dispose() => _timer.Dispose();
}
