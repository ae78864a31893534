using System.Diagnostics;
using System.Diagnostics.Tracing;
using System.Runtime.CompilerServices;

namespace IpcBench.Harness.Measurement;

/// <summary>
/// Whether this process's JIT is done with what it has run, from the JIT's compiled-method count and the runtime's own
/// tiered-compilation events (learn.microsoft.com: "Runtime tiered compilation events"). The count alone cannot tell:
/// while the runtime's call-counting delay is active (it starts, and is extended, whenever a method runs for the first
/// time, a ReadyToRun one too, which no JIT compiles) tier-1 work waits and the count stands still. A warm-up that waited
/// for the count alone ended, in about a third of a grpc client's launches here, with the hot path not yet optimized:
/// twice the p50 and seven times the client's CPU of a launch whose hot path had reached tier 1.
/// </summary>
/// <remarks>
/// The runtime hands its events to a listener on a thread of its own, some milliseconds late, so a pause that began just
/// now may not be heard yet; a method the JIT compiled to start it moves the count at once, so only a first call of
/// ReadyToRun code can slip through that window, which is why the warm-up asks twice, a round apart. The pauses and the
/// worker's runs come from different threads, so each kind is kept in order by itself.
/// </remarks>
public sealed class TieringMonitor : EventListener
{
    private const string RuntimeProvider = "Microsoft-Windows-DotNETRuntime";
    private const EventKeywords CompilationKeyword = (EventKeywords)0x1000000000;
    private const int Pause = 281, Resume = 282, BackgroundJitStart = 283, BackgroundJitStop = 284;

    /// <summary>
    /// How long a monitor that has heard neither a pause nor a resume assumes a pause it came too late to hear: the runtime
    /// sends the pause once, when it begins, and a process with no JIT or tiering off sends nothing at all.
    /// </summary>
    private static readonly TimeSpan UnheardPauseLimit = TimeSpan.FromSeconds(1);

    private static readonly Lazy<TieringMonitor> Instance = new(() => new TieringMonitor());

    private readonly Lock _state = new();
    private readonly long _created = Stopwatch.GetTimestamp();
    private bool? _paused = RuntimeFeature.IsDynamicCodeCompiled ? null : false;
    private bool _jitting;
    private int _pauses;
    private DateTime _lastDelayEvent, _lastWorkerEvent;
    private long _compiled = -1, _changed = Stopwatch.GetTimestamp();

    /// <summary>
    /// This process's monitor, listening from its first use on: touch it before a client first connects, so that it hears
    /// the pause the connection's new code starts.
    /// </summary>
    public static TieringMonitor Process => Instance.Value;

    /// <summary>How many times the runtime has paused its tier-1 work since this monitor began listening.</summary>
    public int Pauses
    {
        get
        {
            lock (_state)
            {
                return _pauses;
            }
        }
    }

    /// <summary>
    /// True once the call-counting delay is over, no tier-1 work runs or waits, and neither that nor the compiled-method
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
            bool paused = _paused ?? Stopwatch.GetElapsedTime(_created) < UnheardPauseLimit;
            return !paused && !_jitting && Stopwatch.GetElapsedTime(_changed) >= quiet;
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
        bool delay = e.EventId is Pause or Resume;
        if (!delay && e.EventId is not (BackgroundJitStart or BackgroundJitStop))
        {
            return;
        }
        lock (_state)
        {
            ref DateTime last = ref delay ? ref _lastDelayEvent : ref _lastWorkerEvent;
            if (e.TimeStamp < last)
            {
                return; // the state has already moved past it
            }
            switch (e.EventId)
            {
                case Pause: (_paused, _pauses) = (true, _pauses + 1); break;
                case Resume: _paused = false; break;
                case BackgroundJitStart: _jitting = true; break;
                default: _jitting = PendingMethods(e) > 0; break; // the worker stopped for a while, with work queued
            }
            (last, _changed) = (e.TimeStamp, Stopwatch.GetTimestamp());
        }
    }

    private static long PendingMethods(EventWrittenEventArgs e)
    {
        int index = e.PayloadNames?.IndexOf("PendingMethodCount") ?? -1;
        return index >= 0 && e.Payload?[index] is { } value ? Convert.ToInt64(value, System.Globalization.CultureInfo.InvariantCulture) : 0;
    }
}
