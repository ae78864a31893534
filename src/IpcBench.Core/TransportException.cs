namespace IpcBench.Core;

/// <summary>A transport failed: nothing answered, the peer went away, or the peer broke the protocol.</summary>
public class TransportException(string message, Exception? inner = null) : Exception(message, inner);

/// <summary>A wait ran out: the peer did not answer in time (for a datagram transport, a lost message).</summary>
public sealed class TransportTimeoutException(string message) : TransportException(message);

/// <summary>A message is larger than the receiver accepts; nothing was allocated for it.</summary>
public sealed class FrameTooLargeException(int length, int limit, string? hint = null)
    : TransportException($"message of {length} B exceeds the limit of {limit} B" + (hint is null ? "" : $" ({hint})"))
{
    public int Length { get; } = length;
    public int Limit { get; } = limit;
}
