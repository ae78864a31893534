using System.Net.Security;
using System.Security.Cryptography.X509Certificates;
using System.Threading.Channels;
using IpcBench.Kit.Security;

namespace IpcBench.Kit.Streams;

/// <summary>
/// TLS over another listener's streams: each accepted stream's handshake runs on its own, within the handshake timeout,
/// so that a slow or silent client holds up no other; <see cref="AcceptAsync"/> hands out the streams whose handshake
/// succeeded. Disposing it stops accepting, closes streams not yet handed out and disposes the certificate.
/// </summary>
public sealed class TlsListener : IStreamListener
{
    private readonly IStreamListener _inner;
    private readonly X509Certificate2 _certificate;
    private readonly TimeSpan _handshakeTimeout;
    private readonly Channel<Stream> _ready = Channel.CreateUnbounded<Stream>();
    private readonly CancellationTokenSource _stopping = new();
    private readonly Task _acceptLoop;

    public TlsListener(IStreamListener inner, X509Certificate2 certificate, TimeSpan handshakeTimeout)
    {
        _inner = inner;
        _certificate = certificate;
        _handshakeTimeout = handshakeTimeout;
        Address = Tls.WithPin(inner.Address, certificate);
        _acceptLoop = Task.Run(() => AcceptLoop.RunAsync(inner, stream => _ = HandshakeAsync(stream), _stopping.Token));
    }

    public Uri Address { get; }

    private async Task HandshakeAsync(Stream stream)
    {
        var tls = new SslStream(stream, leaveInnerStreamOpen: false);
        try
        {
            using var timeout = CancellationTokenSource.CreateLinkedTokenSource(_stopping.Token);
            timeout.CancelAfter(_handshakeTimeout);
            await tls.AuthenticateAsServerAsync(Tls.ServerOptions(_certificate), timeout.Token).ConfigureAwait(false);
            if (_ready.Writer.TryWrite(tls))
            {
                return;
            }
        }
        catch (Exception e) when (!_stopping.IsCancellationRequested)
        {
            Log.Warn($"TLS handshake with a client of {_inner.Address} failed: {(e is OperationCanceledException ? $"none within {_handshakeTimeout.TotalMilliseconds:0} ms" : e.Message)}");
        }
        catch (Exception)
        {
            // Stopping: the client goes with the server.
        }
        await tls.DisposeAsync().ConfigureAwait(false);
    }

    public async ValueTask<Stream> AcceptAsync(CancellationToken ct)
    {
        try
        {
            return await _ready.Reader.ReadAsync(ct).ConfigureAwait(false);
        }
        catch (ChannelClosedException)
        {
            throw new OperationCanceledException("the listener was disposed");
        }
    }

    public async ValueTask DisposeAsync()
    {
        _stopping.Cancel();
        _ready.Writer.TryComplete();
        await _inner.DisposeAsync().ConfigureAwait(false);
        await _acceptLoop.ConfigureAwait(false);
        while (_ready.Reader.TryRead(out var waiting))
        {
            await waiting.DisposeAsync().ConfigureAwait(false);
        }
        _certificate.Dispose();
    }
}
