using System.Net;
using System.Net.WebSockets;
using Microsoft.AspNetCore.Connections;

namespace IpcBench.Transports.SignalR;

/// <summary>How HubConnection gets its connection: a WebSocket straight to the hub's URL (no negotiate request).</summary>
internal sealed class WebSocketConnectionFactory(WebSocketMessageType messageType) : IConnectionFactory
{
    public async ValueTask<ConnectionContext> ConnectAsync(EndPoint endpoint, CancellationToken cancellationToken = default) =>
        endpoint is UriEndPoint { Uri: var uri }
            ? await WebSocketConnection.ConnectAsync(uri, messageType, cancellationToken).ConfigureAwait(false)
            : throw new NotSupportedException($"a SignalR hub is reached by a ws:// URI, not {endpoint}");
}
