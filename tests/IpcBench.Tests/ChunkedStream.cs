namespace IpcBench.Tests;

/// <summary>Returns at most <c>chunk</c> bytes per read, like a socket under load.</summary>
internal sealed class ChunkedStream(byte[] data, int chunk) : MemoryStream(data)
{
    public override int Read(Span<byte> buffer) => base.Read(buffer[..Math.Min(chunk, buffer.Length)]);
    public override int Read(byte[] buffer, int offset, int count) => base.Read(buffer, offset, Math.Min(chunk, count));
    public override ValueTask<int> ReadAsync(Memory<byte> buffer, CancellationToken ct = default) =>
        base.ReadAsync(buffer[..Math.Min(chunk, buffer.Length)], ct);
}
