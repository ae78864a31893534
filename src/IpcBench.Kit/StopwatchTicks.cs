using System.Diagnostics;

namespace IpcBench.Kit;

/// <summary>Durations in <see cref="Stopwatch"/> ticks: the unit every timed loop, deadline and wait here counts in.</summary>
public static class StopwatchTicks
{
    /// <summary><paramref name="duration"/> in Stopwatch ticks, rounded down.</summary>
    public static long From(TimeSpan duration) => (long)(duration.TotalSeconds * Stopwatch.Frequency);

    /// <summary>The Stopwatch timestamp <paramref name="duration"/> from now.</summary>
    public static long FromNow(TimeSpan duration) => Stopwatch.GetTimestamp() + From(duration);
}
