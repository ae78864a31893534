using System.Diagnostics;
using System.Reflection.Emit;
using IpcBench.Harness.Measurement;

namespace IpcBench.Tests;

/// <summary>The warm-up's test of whether this process's JIT is done (<see cref="TieringMonitor"/>), in the test process itself.</summary>
public class TieringMonitorTests
{
    private static readonly TimeSpan Quiet = TimeSpan.FromMilliseconds(250);

    [Fact]
    public async Task An_idle_process_settles_and_a_fresh_compilation_unsettles_it()
    {
        var monitor = TieringMonitor.Process;
        var waited = Stopwatch.StartNew();
        while (!monitor.Settled(Quiet) && waited.Elapsed < TimeSpan.FromSeconds(30))
        {
            await Task.Delay(50, TestContext.Current.CancellationToken);
        }
        Assert.True(monitor.Settled(Quiet), $"the JIT of an idle test process was not done after {waited.Elapsed.TotalSeconds:0} s");

        Assert.Equal(42, CompileNewMethod()()); // a method no JIT has seen: compiled now
        Assert.False(monitor.Settled(Quiet), "a method compiled just now left the JIT settled");
    }

    /// <summary>A method of its own each call, which the JIT compiles when it is first invoked.</summary>
    private static Func<int> CompileNewMethod()
    {
        var method = new DynamicMethod($"fresh{Guid.NewGuid():N}", typeof(int), Type.EmptyTypes);
        var il = method.GetILGenerator();
        il.Emit(OpCodes.Ldc_I4, 42);
        il.Emit(OpCodes.Ret);
        return method.CreateDelegate<Func<int>>();
    }
}
