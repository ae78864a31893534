namespace IpcBench.Kit;

/// <summary>
/// Requests a server dropped because it held as many as it may (a bound on what a flood can make it hold): the first
/// is told at once, the rest counted and told when it stops, so that a flood does not flood the log too.
/// </summary>
public sealed class DropCounter
{
    private long _dropped;

    public void Count(string firstWarning)
    {
        if (Interlocked.Increment(ref _dropped) == 1)
        {
            Log.Warn(firstWarning);
        }
    }

    /// <param name="who">The server, as its warnings name it ("nats server").</param>
    public void Report(string who)
    {
        if (Interlocked.Read(ref _dropped) is var n and > 1)
        {
            Log.Warn($"{who}: dropped {n} requests in all");
        }
    }
}
