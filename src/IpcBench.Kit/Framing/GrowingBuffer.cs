namespace IpcBench.Kit.Framing;

/// <summary>
/// How a receiver's buffer grows for a message whose length its sender announced: with the bytes that arrive, to at
/// most twice what has arrived (or one step) at a time, never to the announced length at once. A peer that announces
/// the limit and sends nothing costs one step, not the limit.
/// </summary>
public static class GrowingBuffer
{
    public const int Step = 64 * 1024;

    /// <summary>The next size of a full buffer of <paramref name="current"/> bytes, for a message of <paramref name="length"/>.</summary>
    public static int NextSize(int current, int length) => Math.Min(length, Math.Max(2 * current, Step));
}
