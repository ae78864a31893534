namespace IpcBench.Contract.Options;

/// <summary>How a blocking wait is done on the client and in each server session.</summary>
public enum IoMode
{
    /// <summary>Blocking calls on a dedicated thread: the fewest thread hops.</summary>
    Sync,
    /// <summary>Async calls through the thread pool, as most .NET services do.</summary>
    Async,
}

/// <summary>The typed options most transports act on: the I/O mode (where the transport has one) and the two waits.</summary>
/// <param name="Io">Blocking (<c>io=sync</c>, the default) or async I/O.</param>
/// <param name="RequestTimeout">How long a request or reply may take (<c>timeout=</c>, default 10 s).</param>
/// <param name="ConnectTimeout">How long connecting may take (<c>connect_timeout=</c>, default 5 s).</param>
public sealed record EndpointOptions(IoMode Io, TimeSpan RequestTimeout, TimeSpan ConnectTimeout)
{
    /// <summary>
    /// The socket and pipe transports' choice between blocking calls on a dedicated thread and async calls on the
    /// thread pool. The others (a library's or a framework's own threads, shared memory) wait their own way.
    /// </summary>
    public static readonly TransportOption IoOption = TransportOption.Choice(
        "io", "blocking calls on a dedicated thread, or async calls on the thread pool", "sync", OptionScope.BothEnds, "sync", "async")
        with { Compared = ["sync", "async"], Shorthand = true, AlwaysNamed = true };

    public static EndpointOptions From(OptionValues values) => new(
        values[IoOption] == "async" ? IoMode.Async : IoMode.Sync,
        values.Duration(OptionValues.Timeout),
        values.Duration(OptionValues.ConnectTimeout));

    /// <summary>Parses <paramref name="address"/>'s options against what <paramref name="transport"/> takes.</summary>
    public static EndpointOptions Parse(Uri address, ITransport transport) => From(OptionValues.Parse(address, transport));
}
