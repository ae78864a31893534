namespace IpcBench.Kit;

/// <summary>
/// A request's timeout as a cancellation token, for a connection that carries one request at a time: one source, reused
/// from request to request (<see cref="CancellationTokenSource.TryReset"/>), so that the hot path allocates nothing for
/// it. <see cref="Start"/> before a request, <see cref="Stop"/> after it. The caller's token, when it can cancel, cancels
/// the source too (a registration, not a linked source: linking allocates). A source that fired cannot be rearmed, so
/// <see cref="Stop"/> replaces it.
/// </summary>
public sealed class RequestTimeout : IDisposable
{
    private CancellationTokenSource _source = new();
    private CancellationTokenRegistration _caller;

    /// <summary>Arms the timeout; the token returned cancels when it elapses or when <paramref name="ct"/> does.</summary>
    public CancellationToken Start(TimeSpan timeout, CancellationToken ct)
    {
        _caller = ct.UnsafeRegister(static source => ((CancellationTokenSource)source!).Cancel(), _source);
        _source.CancelAfter(timeout);
        return _source.Token;
    }

    /// <summary>Whether the request started last was cancelled, by its timeout or by its caller (read it before <see cref="Stop"/>).</summary>
    public bool Fired => _source.IsCancellationRequested;

    /// <summary>Disarms the timeout, ready for the next request.</summary>
    public void Stop()
    {
        _caller.Dispose();
        if (!_source.TryReset())
        {
            _source.Dispose();
            _source = new CancellationTokenSource();
        }
    }

    public void Dispose()
    {
        _caller.Dispose();
        _source.Dispose();
    }
}
