using System.Net;
using System.Net.Http.Headers;
using IpcBench.Core;

namespace IpcBench.Transports.Grpc;

/// <summary>
/// A gRPC client channel of its own: one SocketsHttpHandler (so one HTTP/2 connection, over TCP or,
/// with a ConnectCallback, a Unix domain socket or a named pipe), reused for every call, as a
/// GrpcChannel would be. Each call is a POST of the framed request with "te: trailers"; the reply's
/// grpc-status trailer must be 0.
/// </summary>
internal sealed class GrpcConnection : IConnection
{
    private static readonly MediaTypeHeaderValue GrpcContentType = new(GrpcFraming.ContentType);

    private readonly HttpMessageInvoker _invoker;
    private readonly Uri _callUri;
    private readonly string _peer;
    private readonly int _maxMessage;
    private TimeSpan _timeout;
    private byte[] _send = new byte[GrpcFraming.FramedSize(1024)];
    private byte[] _receive = new byte[GrpcFraming.FramedSize(1024)];

    /// <summary>Opens the connection's stream where it is not TCP (a Unix socket, a named pipe).</summary>
    public delegate ValueTask<Stream> StreamOpener(CancellationToken ct);

    /// <param name="openStream">Null for TCP; otherwise what the handler's ConnectCallback does.</param>
    public GrpcConnection(Uri peer, StreamOpener? openStream, TimeSpan connectTimeout, TimeSpan timeout, int maxMessage)
    {
        var handler = new SocketsHttpHandler { ConnectTimeout = connectTimeout };
        if (openStream is not null)
        {
            handler.ConnectCallback = (_, ct) => openStream(ct);
        }
        _invoker = new HttpMessageInvoker(handler);
        // Over a socket or a pipe the authority is a formality; over TCP it is the server's host:port.
        _callUri = new Uri((openStream is null ? $"http://{peer.Authority}" : "http://localhost") + GrpcFraming.Path);
        _peer = peer.ToString();
        _maxMessage = maxMessage;
        _timeout = timeout;
    }

    public TimeSpan Timeout
    {
        get => _timeout;
        set => _timeout = value;
    }

    public async ValueTask<int> RequestAsync(ReadOnlyMemory<byte> request, Memory<byte> reply, CancellationToken ct = default)
    {
        if (request.Length > _maxMessage)
        {
            throw new FrameTooLargeException(request.Length, _maxMessage);
        }
        if (_send.Length < GrpcFraming.FramedSize(request.Length))
        {
            _send = new byte[GrpcFraming.FramedSize(request.Length)];
        }
        int length = GrpcFraming.Write(_send, request.Span);
        using var message = new HttpRequestMessage(HttpMethod.Post, _callUri)
        {
            Version = HttpVersion.Version20,
            VersionPolicy = HttpVersionPolicy.RequestVersionExact, // h2c with prior knowledge, as gRPC does
            Content = new ByteArrayContent(_send, 0, length),
        };
        message.Content.Headers.ContentType = GrpcContentType;
        message.Headers.TryAddWithoutValidation("te", "trailers");

        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(ct);
        timeout.CancelAfter(_timeout);
        try
        {
            using var response = await _invoker.SendAsync(message, timeout.Token).ConfigureAwait(false);
            var body = await response.Content.ReadAsStreamAsync(timeout.Token).ConfigureAwait(false);
            int received = await ReadAllAsync(body, timeout.Token).ConfigureAwait(false);
            CheckStatus(response, received);
            var prefix = _receive.AsSpan(0, GrpcFraming.PrefixSize);
            int messageLength = GrpcFraming.ReadPrefix(prefix, GrpcFraming.FramedSize(_maxMessage));
            if (received != GrpcFraming.PrefixSize + messageLength)
            {
                throw new TransportException($"{_peer} sent {received} B for a {messageLength} B gRPC message");
            }
            var payload = GrpcFraming.Payload(_receive.AsSpan(GrpcFraming.PrefixSize, messageLength));
            if (payload.Length > reply.Length)
            {
                throw new FrameTooLargeException(payload.Length, reply.Length);
            }
            payload.CopyTo(reply.Span);
            return payload.Length;
        }
        catch (OperationCanceledException) when (!ct.IsCancellationRequested)
        {
            throw new TransportTimeoutException($"no reply from {_peer} within {_timeout.TotalMilliseconds:0} ms");
        }
        catch (HttpRequestException e)
        {
            throw new TransportException($"call to {_peer} failed: {(e.InnerException ?? e).Message}", e);
        }
    }

    /// <summary>Reads the whole response body into the receive buffer (growing it up to the limit); returns its length.</summary>
    private async Task<int> ReadAllAsync(Stream body, CancellationToken ct)
    {
        int total = 0;
        while (true)
        {
            if (total == _receive.Length)
            {
                if (total >= GrpcFraming.FramedSize(_maxMessage))
                {
                    throw new FrameTooLargeException(total, _maxMessage);
                }
                Array.Resize(ref _receive, Math.Min(2 * _receive.Length, GrpcFraming.FramedSize(_maxMessage)));
            }
            int n = await body.ReadAsync(_receive.AsMemory(total), ct).ConfigureAwait(false);
            if (n == 0)
            {
                return total;
            }
            total += n;
        }
    }

    /// <summary>A call succeeded when HTTP said 200 and gRPC said status 0, in the trailers (or, for a trailers-only reply, the headers).</summary>
    private void CheckStatus(HttpResponseMessage response, int received)
    {
        if (response.StatusCode != HttpStatusCode.OK)
        {
            throw new TransportException($"{_peer} answered HTTP {(int)response.StatusCode} (is it a gRPC server?)");
        }
        string? status = Header(response.TrailingHeaders, "grpc-status") ?? Header(response.Headers, "grpc-status");
        if (status != "0")
        {
            string detail = Uri.UnescapeDataString(Header(response.TrailingHeaders, "grpc-message") ?? Header(response.Headers, "grpc-message") ?? "");
            throw new TransportException($"{_peer} answered gRPC status {status ?? "(none)"}{(detail.Length > 0 ? $": {detail}" : "")}");
        }
        if (received < GrpcFraming.PrefixSize)
        {
            throw new TransportException($"{_peer} sent no gRPC message");
        }
    }

    private static string? Header(HttpHeaders headers, string name) =>
        headers.TryGetValues(name, out var values) ? values.FirstOrDefault() : null;

    public ValueTask DisposeAsync()
    {
        _invoker.Dispose();
        return ValueTask.CompletedTask;
    }
}
