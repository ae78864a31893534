using System.Diagnostics;
using System.Diagnostics.Tracing;

namespace IpcBench.Harness.Measurement;

/// <summary>
/// Whether this process's JIT is done with what it has run, from the JIT's compiled-method count and the runtime's own
/// tiered-compilation events (learn.microsoft.com: "Runtime tiered compilation events"). The count alone cannot tell:
/// while the runtime's call-counting delay is active (it starts, and is extended, whenever a method runs for the first
/// time, a ReadyToRun one too, which no JIT compiles) tier-1 work waits and the count stands still. A warm-up that waited
/// for the count alone ended, in about a third of a grpc client's launches here, with the hot path not yet optimized:
/// twice the p50 and seven times the client's CPU of a launch whose hot path had reached tier 1.
/// </summary>
public sealed class TieringMonitor : EventListener
{
    private const string RuntimeProvider = "Microsoft-Windows-DotNETRuntime";
    private const EventKeywords CompilationKeyword = (EventKeywords)0x1000000000;
    private const int Pause = 281, Resume = 282, BackgroundJitStart = 283, BackgroundJitStop = 284;

    private static readonly Lazy<TieringMonitor> Instance = new(() => new TieringMonitor());

    private readonly Lock _state = new();
    private bool _paused, _jitting;
    private long _compiled = -1, _changed = Stopwatch.GetTimestamp();

    /// <summary>
    /// This process's monitor, listening from its first use on: from before a case's client connects, so that it hears the
    /// pause the connection's new code starts.
    /// </summary>
    public static TieringMonitor Process => Instance.Value;

    /// <summary>
    /// True once the call-counting delay is over, no background tier-1 work runs, and neither that nor the compiled-method
    /// count changed for <paramref name="quiet"/>: the count is read at each call, so call it every round.
    /// </summary>
    public bool Settled(TimeSpan quiet)
    {
        long compiled = System.Runtime.JitInfo.GetCompiledMethodCount();
        lock (_state)
        {
            if (compiled != _compiled)
            {
                (_compiled, _changed) = (compiled, Stopwatch.GetTimestamp());
            }
            return !_paused && !_jitting && Stopwatch.GetElapsedTime(_changed) >= quiet;
        }
    }

    protected override void OnEventSourceCreated(EventSource source)
    {
        if (source.Name == RuntimeProvider)
        {
            EnableEvents(source, EventLevel.Informational, CompilationKeyword);
        }
    }

    protected override void OnEventWritten(EventWrittenEventArgs e)
    {
        lock (_state)
        {
            switch (e.EventId)
            {
                case Pause: _paused = true; break;
                case Resume: _paused = false; break;
                case BackgroundJitStart: _jitting = true; break;
                case BackgroundJitStop: _jitting = false; break;
                default: return;
            }
            _changed = Stopwatch.GetTimestamp();
        }
    }
}
