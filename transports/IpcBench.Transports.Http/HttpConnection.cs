using System.Net;
using IpcBench.Contract;
using IpcBench.Kit;

namespace IpcBench.Transports.Http;

/// <summary>
/// One HttpClient on a SocketsHttpHandler of its own, reused for every request: one keep-alive connection (HTTP/1.1,
/// at most one, so that a second request waits its turn as on any one connection) or one HTTP/2 connection whose
/// streams carry concurrent requests. No proxy, cookies, redirects or decompression: nothing but the exchange.
/// </summary>
internal sealed class HttpConnection : IProbedConnection
{
    private readonly HttpClient _client;
    private readonly Uri _echo;
    private readonly Version _version;
    private readonly string _peer;

    /// <param name="reach">Sets the handler up to reach the server (the transport's endpoint); returns the base URI.</param>
    public HttpConnection(Uri peer, Version version, TimeSpan connectTimeout, Func<SocketsHttpHandler, string> reach)
    {
        _peer = peer.ToString();
        _version = version;
        var handler = new SocketsHttpHandler
        {
            ConnectTimeout = connectTimeout,
            MaxConnectionsPerServer = 1,
            PooledConnectionIdleTimeout = Timeout.InfiniteTimeSpan,
            PooledConnectionLifetime = Timeout.InfiniteTimeSpan,
            UseProxy = false,
            UseCookies = false,
            AllowAutoRedirect = false,
            AutomaticDecompression = DecompressionMethods.None,
        };
        _echo = new Uri(reach(handler) + EchoEndpoint.Path);
        _client = new HttpClient(handler) { Timeout = Timeout.InfiniteTimeSpan }; // each request has its own deadline
    }

    public TimeSpan ReplyTimeout { get; set; }

    public async ValueTask<int> RequestAsync(ReadOnlyMemory<byte> request, Memory<byte> reply, CancellationToken ct = default)
    {
        FrameTooLargeException.ThrowIfTooLarge(request.Length, HttpTransport.MaxPayload);
        using var deadline = CancellationTokenSource.CreateLinkedTokenSource(ct);
        deadline.CancelAfter(ReplyTimeout);
        using var message = new HttpRequestMessage(HttpMethod.Post, _echo)
        {
            Content = new ReadOnlyMemoryContent(request),
            Version = _version,
            VersionPolicy = HttpVersionPolicy.RequestVersionExact,
        };
        try
        {
            using var response = await _client.SendAsync(message, HttpCompletionOption.ResponseHeadersRead, deadline.Token).ConfigureAwait(false);
            if (!response.IsSuccessStatusCode)
            {
                throw new TransportException($"{_peer} answered {(int)response.StatusCode} {response.ReasonPhrase}");
            }
            if (response.Content.Headers.ContentLength is not long length)
            {
                throw new TransportException($"{_peer} answered without a Content-Length");
            }
            if (length > reply.Length)
            {
                throw new FrameTooLargeException((int)Math.Min(length, int.MaxValue), reply.Length);
            }
            await using var body = await response.Content.ReadAsStreamAsync(deadline.Token).ConfigureAwait(false);
            await body.ReadExactlyAsync(reply[..(int)length], deadline.Token).ConfigureAwait(false);
            return (int)length;
        }
        catch (OperationCanceledException) when (!ct.IsCancellationRequested)
        {
            throw TransportErrors.NoReply(_peer, ReplyTimeout);
        }
        catch (Exception e) when (e is HttpRequestException or IOException)
        {
            throw TransportErrors.Translate(e, _peer, ReplyTimeout);
        }
    }

    public ValueTask DisposeAsync()
    {
        _client.Dispose();
        return ValueTask.CompletedTask;
    }
}
