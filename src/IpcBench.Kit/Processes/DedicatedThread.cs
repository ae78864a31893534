namespace IpcBench.Kit.Processes;

/// <summary>
/// A background thread of its own for a blocking loop (a server session, a receive loop), with a
/// task that completes when the loop ends, however it ends, so that stopping can wait for it.
/// </summary>
public static class DedicatedThread
{
    public static Task Start(string name, Action body)
    {
        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var thread = new Thread(() =>
        {
            try
            {
                body();
                done.SetResult();
            }
            catch (Exception e)
            {
                done.SetException(e);
            }
        })
        {
            IsBackground = true,
            Name = name,
        };
        thread.Start();
        return done.Task;
    }
}
