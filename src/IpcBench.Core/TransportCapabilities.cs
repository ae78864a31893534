namespace IpcBench.Core;

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
}

/// <param name="Features">What the transport guarantees.</param>
/// <param name="MaxMessageSize">The largest request or reply payload, in bytes.</param>
public readonly record struct TransportCapabilities(TransportFeatures Features, int MaxMessageSize)
{
    public bool Has(TransportFeatures feature) => (Features & feature) == feature;

    /// <summary>Null when a payload of <paramref name="size"/> bytes can be sent; otherwise why not.</summary>
    public string? RejectSize(int size) =>
        size > MaxMessageSize ? $"{size} B exceeds the transport's maximum message size of {MaxMessageSize} B" : null;

    public override string ToString()
    {
        var features = Features;
        var names = Enum.GetValues<TransportFeatures>()
            .Where(f => f != TransportFeatures.None && (features & f) == f)
            .Select(f => f.ToString().ToLowerInvariant());
        return $"{string.Join(", ", names)}; max {MaxMessageSize} B";
    }
}
