using IpcBench.Contract;

namespace IpcBench.Kit;

/// <summary>How a server or client waits for what it stops: never past <see cref="IServer.StopTimeout"/>, so that stopping cannot hang.</summary>
public static class Stopping
{
    /// <summary>
    /// Waits for <paramref name="task"/> to end, for <see cref="IServer.StopTimeout"/> at most; past that, warns
    /// "<paramref name="whatDidNot"/> within N s" (say, "thrift server X: its accept loop did not stop") and returns
    /// false. A fault of the task is not thrown: what stops has nothing left to report it to.
    /// </summary>
    public static async Task<bool> WaitAsync(Task task, string whatDidNot)
    {
        if (await Task.WhenAny(task, Task.Delay(IServer.StopTimeout)).ConfigureAwait(false) == task)
        {
            return true;
        }
        Log.Warn($"{whatDidNot} within {IServer.StopTimeout.TotalSeconds:0} s");
        return false;
    }
}
