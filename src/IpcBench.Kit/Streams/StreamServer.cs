using System.Collections.Concurrent;
using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Kit.Framing;
using IpcBench.Kit.Processes;

namespace IpcBench.Kit.Streams;

/// <summary>
/// Accepts clients and serves each on its own session: a dedicated thread with blocking reads
/// (<see cref="IoMode.Sync"/>) or an async loop on the thread pool (<see cref="IoMode.Async"/>).
/// A session that receives a bad frame (say a header announcing 2 GB) is dropped before anything is
/// allocated for it; the others go on. A session's request buffer grows with the bytes that arrive, so a
/// client that announces a large request and never sends it holds little memory.
/// </summary>
internal sealed class StreamServer : IServer
{
    private readonly IStreamListener _listener;
    private readonly RequestHandler _handler;
    private readonly EndpointOptions _options;
    private readonly int _maxPayload;
    private readonly bool _splitWrites;
    private readonly CancellationTokenSource _stopping = new();
    private readonly ConcurrentDictionary<FramedStream, Task> _sessions = new();
    private readonly Task _acceptLoop;

    public StreamServer(IStreamListener listener, RequestHandler handler, EndpointOptions options, int maxPayload, bool splitWrites)
    {
        _splitWrites = splitWrites;
        _listener = listener;
        _handler = handler;
        _options = options;
        _maxPayload = maxPayload;
        _acceptLoop = Task.Run(() => AcceptLoop.RunAsync(listener, StartSession, _stopping.Token));
    }

    public Uri Address => _listener.Address;

    private void StartSession(Stream stream)
    {
        var framed = new FramedStream(stream, _maxPayload, _splitWrites);
        _sessions[framed] = _options.Io == IoMode.Sync
            ? DedicatedThread.Start("ipcbench session", () => Serve(framed))
            : Task.Run(() => ServeAsync(framed));
    }

    private void Serve(FramedStream framed)
    {
        byte[] request = new byte[1024];
        try
        {
            while (true)
            {
                int length = framed.ReadHeader();
                if (TryReplyInPlace(framed, length) is not int replyLength)
                {
                    request = ReadRequest(framed, request, length);
                    replyLength = _handler.Handle(request.AsSpan(0, length), framed.PreparePayload(_handler.ReplyCapacity(length)));
                }
                framed.WritePrepared(replyLength);
            }
        }
        catch (Exception e) when (TransportErrors.IsConnectionFailure(e) || e is TransportException)
        {
            EndSession(framed, e);
        }
    }

    private async Task ServeAsync(FramedStream framed)
    {
        byte[] request = new byte[1024];
        var ct = _stopping.Token;
        try
        {
            while (true)
            {
                int length = await framed.ReadHeaderAsync(ct).ConfigureAwait(false);
                if (TryReplyInPlace(framed, length) is not int replyLength)
                {
                    request = await ReadRequestAsync(framed, request, length, ct).ConfigureAwait(false);
                    replyLength = _handler.Handle(request.AsSpan(0, length), framed.PreparePayload(_handler.ReplyCapacity(length)));
                }
                await framed.WritePreparedAsync(replyLength, ct).ConfigureAwait(false);
            }
        }
        catch (Exception e) when (TransportErrors.IsConnectionFailure(e) || e is TransportException)
        {
            EndSession(framed, e);
        }
    }

    /// <summary>The reply's length when the whole request has arrived with its header: answered from the read buffer, no copy first.</summary>
    private int? TryReplyInPlace(FramedStream framed, int length) =>
        framed.TryTakeBuffered(length, out var request) ? _handler.Handle(request, framed.PreparePayload(_handler.ReplyCapacity(length))) : null;

    /// <summary>
    /// Reads a request's <paramref name="length"/> payload bytes (checked against the limit) into <paramref name="buffer"/>,
    /// which grows as the bytes arrive, not to the announced length at once: a client that announces the limit and sends
    /// nothing costs its session <see cref="GrowingBuffer.Step"/>, not the limit. Returns the buffer, kept for the next request.
    /// </summary>
    private static byte[] ReadRequest(FramedStream framed, byte[] buffer, int length)
    {
        for (int read = 0; ; buffer = Grown(buffer, read, length))
        {
            int end = Math.Min(length, buffer.Length);
            framed.ReadPayload(buffer.AsSpan(read, end - read));
            read = end;
            if (read == length)
            {
                return buffer;
            }
        }
    }

    [System.Runtime.CompilerServices.AsyncMethodBuilder(typeof(System.Runtime.CompilerServices.PoolingAsyncValueTaskMethodBuilder<>))]
    private static async ValueTask<byte[]> ReadRequestAsync(FramedStream framed, byte[] buffer, int length, CancellationToken ct)
    {
        for (int read = 0; ; buffer = Grown(buffer, read, length))
        {
            int end = Math.Min(length, buffer.Length);
            await framed.ReadPayloadAsync(buffer.AsMemory(read, end - read), ct).ConfigureAwait(false);
            read = end;
            if (read == length)
            {
                return buffer;
            }
        }
    }

    private static byte[] Grown(byte[] buffer, int kept, int length)
    {
        var grown = new byte[GrowingBuffer.NextSize(buffer.Length, length)];
        buffer.AsSpan(0, kept).CopyTo(grown);
        return grown;
    }

    private void EndSession(FramedStream framed, Exception reason)
    {
        framed.Dispose();
        if (!_stopping.IsCancellationRequested && reason is not EndOfStreamException)
        {
            // A client that hangs up is normal; anything else is worth a line on stderr.
            Log.Warn($"dropped a connection to {Address}: {reason.Message}");
        }
        _sessions.TryRemove(framed, out _);
    }

    public async ValueTask DisposeAsync()
    {
        _stopping.Cancel();
        await _listener.DisposeAsync().ConfigureAwait(false);
        foreach (var framed in _sessions.Keys)
        {
            framed.Dispose(); // unblocks a session thread waiting in a read
        }
        await Stopping.WaitAsync(Task.WhenAll(_sessions.Values.Append(_acceptLoop)), $"server {Address}: sessions did not end").ConfigureAwait(false);
        _stopping.Dispose();
    }
}
