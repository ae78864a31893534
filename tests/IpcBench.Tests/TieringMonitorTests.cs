using System.Diagnostics;
using System.Reflection.Emit;
using System.Runtime.CompilerServices;
using IpcBench.Harness.Measurement;

namespace IpcBench.Tests;

/// <summary>
/// The warm-up's test of whether this process's JIT is done (<see cref="TieringMonitor"/>), in the test process itself:
/// alone, since other tests running beside it keep the JIT busy.
/// </summary>
[Collection(Name)]
public class TieringMonitorTests
{
    public const string Name = "tiering monitor, alone";

    private static readonly TimeSpan Quiet = TimeSpan.FromMilliseconds(250);
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(30);

    [Fact]
    public async Task An_idle_process_settles_and_a_fresh_compilation_unsettles_it()
    {
        var monitor = TieringMonitor.Process;
        await WaitUntilSettled(monitor);

        Assert.Equal(42, CompileNewMethod()()); // a method no JIT has seen: compiled now
        Assert.False(monitor.Settled(Quiet), "a method compiled just now left the JIT settled");
    }

    [Fact]
    public async Task A_first_call_pauses_tiering_and_the_resume_is_heard()
    {
        Assert.SkipWhen(RuntimeSetting("TieredCompilation") == "0" || RuntimeSetting("TC_CallCountingDelayMs") == "0",
            "tiered compilation or its call-counting delay is off: no method's first call pauses it");
        var monitor = TieringMonitor.Process;
        await WaitUntilSettled(monitor);
        int before = monitor.Pauses;

        Assert.Equal(7, CalledOnlyHere(3)); // its first call starts the runtime's call-counting delay: a pause
        var waited = Stopwatch.StartNew();
        while (monitor.Pauses == before && waited.Elapsed < Patience)
        {
            await Task.Delay(10, TestContext.Current.CancellationToken);
        }
        Assert.True(monitor.Pauses > before, $"no pause heard in {waited.Elapsed.TotalSeconds:0} s after a method's first call");
        await WaitUntilSettled(monitor); // and its resume: the delay ends
    }

    private static async Task WaitUntilSettled(TieringMonitor monitor)
    {
        var waited = Stopwatch.StartNew();
        while (!monitor.Settled(Quiet) && waited.Elapsed < Patience)
        {
            await Task.Delay(50, TestContext.Current.CancellationToken);
        }
        Assert.True(monitor.Settled(Quiet), $"the JIT of an idle test process was not done after {waited.Elapsed.TotalSeconds:0} s");
    }

    private static string? RuntimeSetting(string name) =>
        Environment.GetEnvironmentVariable("DOTNET_" + name) ?? Environment.GetEnvironmentVariable("COMPlus_" + name);

    /// <summary>A tiered method that nothing else calls, so that its first call is this test's.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int CalledOnlyHere(int x) => 2 * x + 1;

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

[CollectionDefinition(TieringMonitorTests.Name, DisableParallelization = true)]
public sealed class TieringMonitorCollection;
