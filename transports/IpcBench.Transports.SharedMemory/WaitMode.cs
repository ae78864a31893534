namespace IpcBench.Transports.SharedMemory;

/// <summary>How a side of the channel waits for the other (<c>?wait=</c> in the address).</summary>
public enum WaitMode
{
    /// <summary>Busy-wait: the lowest latency, and a whole core per waiting side.</summary>
    Spin,
    /// <summary>A bounded spin (<see cref="Signal.HybridSpin"/>), then a futex sleep.</summary>
    Hybrid,
    /// <summary>A futex sleep at once: no spinning at all.</summary>
    Block,
}
