using System.Buffers;
using System.IO.Pipelines;
using System.Net;
using System.Net.WebSockets;
using Microsoft.AspNetCore.Connections;
using Microsoft.AspNetCore.Http.Features;

namespace IpcBench.Transports.SignalR;

/// <summary>
/// The client end of a SignalR connection over one WebSocket, without negotiation: what the
/// Http.Connections.Client package's WebSocket transport does with SkipNegotiation, which that
/// package (absent from the registry here) would otherwise provide. HubConnection reads and writes
/// <see cref="ConnectionContext.Transport"/>; two loops move its bytes to and from the socket.
/// SignalR frames its own messages inside the byte stream, so WebSocket message boundaries carry no
/// meaning; each flush of the hub's writes goes out as one WebSocket message.
/// </summary>
internal sealed class WebSocketConnection : ConnectionContext
{
    private static readonly TimeSpan CloseTimeout = TimeSpan.FromSeconds(2);
    // A 100 KB message fits without the loops pausing on the pipes' back-pressure.
    private static readonly PipeOptions Options = new(pauseWriterThreshold: 1 << 20, resumeWriterThreshold: 1 << 19, useSynchronizationContext: false);

    private readonly ClientWebSocket _socket;
    private readonly WebSocketMessageType _messageType;
    private readonly Pipe _fromServer = new(Options);
    private readonly Pipe _toServer = new(Options);
    private readonly Task _receiving;
    private readonly Task _sending;

    private WebSocketConnection(ClientWebSocket socket, WebSocketMessageType messageType, EndPoint remote)
    {
        _socket = socket;
        _messageType = messageType;
        RemoteEndPoint = remote;
        Transport = new DuplexPipe(_fromServer.Reader, _toServer.Writer);
        _receiving = Task.Run(ReceiveLoopAsync);
        _sending = Task.Run(SendLoopAsync);
    }

    public override string ConnectionId { get; set; } = Guid.NewGuid().ToString("N");
    public override IFeatureCollection Features { get; } = new FeatureCollection();
    public override IDictionary<object, object?> Items { get; set; } = new Dictionary<object, object?>();
    public override IDuplexPipe Transport { get; set; }

    /// <summary>Opens the WebSocket at <paramref name="uri"/> (ws://host:port/hub); text frames for a text protocol (JSON), binary otherwise.</summary>
    public static async Task<WebSocketConnection> ConnectAsync(Uri uri, WebSocketMessageType messageType, CancellationToken ct)
    {
        var socket = new ClientWebSocket();
        try
        {
            await socket.ConnectAsync(uri, ct).ConfigureAwait(false);
        }
        catch
        {
            socket.Dispose();
            throw;
        }
        return new WebSocketConnection(socket, messageType, new UriEndPoint(uri));
    }

    /// <summary>Server to hub: each received chunk is flushed at once. A close or a broken socket ends the hub's input.</summary>
    private async Task ReceiveLoopAsync()
    {
        var writer = _fromServer.Writer;
        Exception? failure = null;
        try
        {
            while (true)
            {
                var result = await _socket.ReceiveAsync(writer.GetMemory(), CancellationToken.None).ConfigureAwait(false);
                if (result.MessageType == WebSocketMessageType.Close)
                {
                    break;
                }
                writer.Advance(result.Count);
                if ((await writer.FlushAsync().ConfigureAwait(false)).IsCompleted)
                {
                    break;
                }
            }
        }
        catch (Exception e) when (e is WebSocketException or OperationCanceledException or ObjectDisposedException)
        {
            failure = new IOException($"the WebSocket to {RemoteEndPoint} broke: {e.Message}", e);
        }
        await writer.CompleteAsync(failure).ConfigureAwait(false);
    }

    /// <summary>Hub to server: each flush becomes one WebSocket message; when the hub completes its output, a close frame.</summary>
    private async Task SendLoopAsync()
    {
        var reader = _toServer.Reader;
        try
        {
            while (true)
            {
                var result = await reader.ReadAsync().ConfigureAwait(false);
                var buffer = result.Buffer;
                try
                {
                    if (!buffer.IsEmpty)
                    {
                        await SendAsync(buffer).ConfigureAwait(false);
                    }
                }
                finally
                {
                    reader.AdvanceTo(buffer.End);
                }
                if (result.IsCompleted || result.IsCanceled)
                {
                    break;
                }
            }
            if (_socket.State is WebSocketState.Open or WebSocketState.CloseReceived)
            {
                using var timeout = new CancellationTokenSource(CloseTimeout);
                await _socket.CloseOutputAsync(WebSocketCloseStatus.NormalClosure, null, timeout.Token).ConfigureAwait(false);
            }
        }
        catch (Exception e) when (e is WebSocketException or OperationCanceledException or ObjectDisposedException)
        {
            // The socket broke: the receive loop reports it to the hub.
        }
        await reader.CompleteAsync().ConfigureAwait(false);
    }

    private async ValueTask SendAsync(ReadOnlySequence<byte> buffer)
    {
        if (buffer.IsSingleSegment)
        {
            await _socket.SendAsync(buffer.First, _messageType, endOfMessage: true, CancellationToken.None).ConfigureAwait(false);
            return;
        }
        var position = buffer.Start;
        buffer.TryGet(ref position, out var segment);
        while (buffer.TryGet(ref position, out var next))
        {
            await _socket.SendAsync(segment, _messageType, endOfMessage: false, CancellationToken.None).ConfigureAwait(false);
            segment = next;
        }
        await _socket.SendAsync(segment, _messageType, endOfMessage: true, CancellationToken.None).ConfigureAwait(false);
    }

    /// <summary>Closes politely (a close frame, the server's answer) within two seconds, then aborts.</summary>
    public override async ValueTask DisposeAsync()
    {
        await _toServer.Writer.CompleteAsync().ConfigureAwait(false);
        await Task.WhenAny(Task.WhenAll(_sending, _receiving), Task.Delay(CloseTimeout)).ConfigureAwait(false);
        _socket.Abort(); // ends whichever loop still waits on the socket
        await Task.WhenAll(_sending, _receiving).ConfigureAwait(false);
        await _fromServer.Reader.CompleteAsync().ConfigureAwait(false);
        _socket.Dispose();
    }

    private sealed class DuplexPipe(PipeReader input, PipeWriter output) : IDuplexPipe
    {
        public PipeReader Input { get; } = input;
        public PipeWriter Output { get; } = output;
    }
}
