namespace IpcBench.Contract;

[Flags]
public enum TransportFeatures
{
    None = 0,
    /// <summary>Nothing is lost or reordered: no request ever needs a retry.</summary>
    Reliable = 1,
    /// <summary>The transport itself keeps message boundaries (no framing needed on top).</summary>
    MessageBoundaries = 2,
    /// <summary>Client and server may be on different hosts.</summary>
    CrossHost = 4,
    /// <summary>Messages pass through a broker process between client and server.</summary>
    Brokered = 8,
    /// <summary>
    /// Several requests may be in flight on one connection at once: <see cref="IConnection.RequestAsync"/> may be
    /// called again before an earlier call completes, and each reply finds its request (by a request id).
    /// </summary>
    Pipelined = 16,
    /// <summary>
    /// Not IPC: the "server" is the handler, called in the client's own process (a baseline). Nothing serves it from
    /// another process; its CPU is the client's.
    /// </summary>
    InProcess = 32,
}

/// <param name="Features">What the transport guarantees.</param>
/// <param name="MaxMessageSize">The largest request or reply payload, in bytes.</param>
public readonly record struct TransportCapabilities(TransportFeatures Features, int MaxMessageSize)
{
    public bool Has(TransportFeatures feature) => (Features & feature) == feature;

    /// <summary>A message may be lost (not <see cref="TransportFeatures.Reliable"/>): a timeout is then a lost message, not a server that stopped answering.</summary>
    public bool MayLoseMessages => !Has(TransportFeatures.Reliable);

    /// <summary>Null when the server serves many clients at once; otherwise why it serves one at a time.</summary>
    public string? OneClientAtATime { get; init; }

    /// <summary>Null when the server answers as the handler it is given says; otherwise why it only echoes (a server of its own program).</summary>
    public string? EchoesOnly { get; init; }

    /// <summary>Null when replies of <paramref name="replySize"/> bytes to requests of <paramref name="size"/> can be had; otherwise why not.</summary>
    public string? RejectReplySize(int replySize, int size) =>
        replySize != size && EchoesOnly is { } reason ? $"its server replies with the request: {reason}" : RejectSize(replySize);

    /// <summary>Null when <paramref name="clients"/> connections may be served at once; otherwise why not.</summary>
    public string? RejectClients(int clients) =>
        clients > 1 && OneClientAtATime is { } reason ? $"its server serves one client at a time: {reason}" : null;

    /// <summary>Null when <paramref name="inFlight"/> requests may be outstanding on one connection; otherwise why not.</summary>
    public string? RejectInFlight(int inFlight) =>
        inFlight > 1 && !Has(TransportFeatures.Pipelined) ? "it carries one request at a time on a connection" : null;

    /// <summary>Null when a payload of <paramref name="size"/> bytes can be sent; otherwise why not.</summary>
    public string? RejectSize(int size) =>
        size > MaxMessageSize ? $"{size} B exceeds the transport's maximum message size of {MaxMessageSize} B" : null;
}
