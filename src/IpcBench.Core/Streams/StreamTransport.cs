using IpcBench.Core.Framing;

namespace IpcBench.Core.Streams;

/// <summary>A listener that hands out one byte stream per accepted client.</summary>
public interface IStreamListener : IAsyncDisposable
{
    Uri Address { get; }

    /// <summary>The next client's stream; throws <see cref="OperationCanceledException"/> once disposed.</summary>
    ValueTask<Stream> AcceptAsync(CancellationToken ct);
}

/// <summary>
/// The shared shape of the byte-stream transports (tcp, uds, pipe, ...): they differ only in how a
/// stream is connected and how the next one is accepted. Framing, sessions, timeouts and error
/// handling live here, once.
/// </summary>
public abstract class StreamTransport : ITransport
{
    public abstract string Name { get; }
    public abstract string Description { get; }
    public virtual string? UnsupportedReason => null;
    public virtual TransportCapabilities Capabilities =>
        new(TransportFeatures.Reliable | TransportFeatures.CrossHost, LengthPrefix.DefaultMaxPayload);

    public virtual IReadOnlyList<string> Variants => EndpointOptions.IoVariants;

    public abstract Uri DefaultAddress();

    /// <summary>
    /// Binds and listens on <paramref name="address"/>. Streams it accepts must suit <see cref="EndpointOptions.Io"/>:
    /// for blocking I/O, a stream whose blocking reads really block (see the sockets transports).
    /// </summary>
    protected abstract ValueTask<IStreamListener> ListenAsync(Uri address, EndpointOptions options, CancellationToken ct);

    /// <summary>Connects a stream to <paramref name="address"/>; honours <paramref name="ct"/> as the connect timeout.</summary>
    protected abstract ValueTask<Stream> ConnectStreamAsync(Uri address, EndpointOptions options, CancellationToken ct);

    /// <summary>Extra query keys this transport accepts beyond <see cref="EndpointOptions"/>'s and <c>writes</c>.</summary>
    protected virtual string[] ExtraOptionKeys => [];

    /// <summary>Whether header and payload go out as two writes unless the address says <c>writes=single|split</c>.</summary>
    protected virtual bool SplitWritesByDefault => false;

    private (EndpointOptions Options, bool SplitWrites) ParseOptions(Uri address)
    {
        var options = EndpointOptions.Parse(address, [.. ExtraOptionKeys, "writes"]);
        bool split = EndpointOptions.Query(address).TryGetValue("writes", out string? writes)
            ? writes switch
            {
                "single" => false,
                "split" => true,
                _ => throw new ArgumentException($"writes must be 'single' or 'split', not '{writes}'"),
            }
            : SplitWritesByDefault;
        return (options, split);
    }

    public async ValueTask<IServer> StartServerAsync(Uri address, RequestHandler handler, CancellationToken ct = default)
    {
        var (options, split) = ParseOptions(address);
        var listener = await ListenAsync(address, options, ct).ConfigureAwait(false);
        return new StreamServer(listener, handler, options, Capabilities.MaxMessageSize, split);
    }

    public async ValueTask<IConnection> ConnectAsync(Uri address, CancellationToken ct = default)
    {
        var (options, split) = ParseOptions(address);
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(ct);
        timeout.CancelAfter(options.ConnectTimeout);
        Stream stream;
        try
        {
            stream = await ConnectStreamAsync(address, options, timeout.Token).ConfigureAwait(false);
        }
        catch (Exception e) when (TransportErrors.IsConnectionFailure(e) && !ct.IsCancellationRequested)
        {
            throw TransportErrors.ConnectFailed(e, EndpointOptions.WithoutQuery(address), options.ConnectTimeout);
        }
        return new StreamConnection(new FramedStream(stream, Capabilities.MaxMessageSize, split), EndpointOptions.WithoutQuery(address), options);
    }
}
