using System.Diagnostics;

namespace IpcBench.Benchmarks;

/// <summary>
/// The warm-up a case does in its setup, before any timing: a number of steps, or as many as fit in a second, at least
/// one. BenchmarkDotNet's own warm-up iterations follow anyway; without the bound a case whose request takes a second
/// (wcf at 100 KB on its default buffer) spent minutes here.
/// </summary>
internal static class WarmUp
{
    private static readonly TimeSpan Budget = TimeSpan.FromSeconds(1);

    public static async Task RunAsync(int steps, Func<ValueTask> step)
    {
        long started = Stopwatch.GetTimestamp();
        for (int i = 0; i < steps && (i == 0 || Stopwatch.GetElapsedTime(started) < Budget); i++)
        {
            await step();
        }
    }
}
