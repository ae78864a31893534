using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Kit.Framing;

namespace IpcBench.Kit.Streams;

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
    public abstract TransportFamily Family { get; }
    public abstract string Description { get; }
    public virtual string? UnsupportedReason => null;
    public virtual TransportCapabilities Capabilities =>
        new(TransportFeatures.Reliable | TransportFeatures.CrossHost, LengthPrefix.DefaultMaxPayload);

    public virtual IReadOnlyList<TransportOption> Options => [EndpointOptions.IoOption, Writes];

    private TransportOption Writes => SplitWritesByDefault ? SplitWrites : SingleWrites;

    private static readonly TransportOption SingleWrites = WritesOption("single");
    private static readonly TransportOption SplitWrites = WritesOption("split");

    private static TransportOption WritesOption(string @default) => TransportOption.Choice(
        "writes", "a frame's header and payload in one write, or in two (as much hand-written framing does)",
        @default, OptionScope.BothEnds, "single", "split");

    public abstract Uri DefaultAddress();

    /// <summary>
    /// Binds and listens on <paramref name="address"/>. Streams it accepts must suit <see cref="EndpointOptions.Io"/>:
    /// for blocking I/O, a stream whose blocking reads really block (see the sockets transports).
    /// </summary>
    protected abstract ValueTask<IStreamListener> ListenAsync(Uri address, EndpointOptions options, CancellationToken ct);

    /// <summary>Connects a stream to <paramref name="address"/>; honours <paramref name="ct"/> as the connect timeout.</summary>
    protected abstract ValueTask<Stream> ConnectStreamAsync(Uri address, EndpointOptions options, CancellationToken ct);

    /// <summary>Whether header and payload go out as two writes unless the address says <c>writes=single|split</c>.</summary>
    protected virtual bool SplitWritesByDefault => false;

    private (EndpointOptions Options, bool SplitWrites) ParseOptions(Uri address)
    {
        var values = OptionValues.Parse(address, this);
        return (EndpointOptions.From(values), values[Writes] == "split");
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
            throw TransportErrors.ConnectFailed(e, AddressQuery.WithoutQuery(address), options.ConnectTimeout);
        }
        return new StreamConnection(new FramedStream(stream, Capabilities.MaxMessageSize, split), AddressQuery.WithoutQuery(address), options);
    }
}
