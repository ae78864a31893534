using System.Text.Json.Serialization;
using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Kit.Security;
using IpcBench.Transports;

namespace IpcBench.Cli.Commands;

/// <summary>
/// A transport as <c>ipcbench list --json</c> gives it to scripts: what it is, whether it runs here, and what its client
/// meets its server on, which says what boundary it can cross (ipcbench isolations pairs it by that, never by its name).
/// </summary>
/// <param name="MeetsOn">
/// "network" (an address and a port: crosses network namespaces and container bridges), "socket-file" (a path: crosses a
/// shared volume), "pipe-name" (a .NET pipe's name: a socket file in the temp directory), "shared-memory" (/dev/shm:
/// a shared IPC namespace), "broker" (both sides are the broker's clients), or "in-process" (a baseline).
/// </param>
/// <param name="TrustsOneCertificate">Its client trusts only the certificate its server names in its READY line (TLS).</param>
/// <param name="Broker">The broker program its messages go through (<see cref="ITransport.Broker"/>).</param>
/// <param name="AddressOptions">What a client must be told of a server besides where it is (a broker's queue, subject or channel).</param>
public sealed record TransportListing(string Name, string Family, bool Runs, string? NotHere, IReadOnlyList<string> Features, bool Pipelined,
    int MaxMessageBytes, string Description, string MeetsOn, bool TrustsOneCertificate, string? Broker, int? DefaultPort,
    IReadOnlyList<string> AddressOptions)
{
    /// <param name="notHere">Why each registered transport does not run here, in the registry's order.</param>
    public static IReadOnlyList<TransportListing> All(IReadOnlyList<string?> notHere) =>
        [.. TransportRegistry.All.Select((t, i) => Of(t, notHere[i]))];

    internal static TransportListing Of(ITransport t, string? notHere)
    {
        var address = t.DefaultAddress();
        return new(t.Name, Harness.Results.Figures.FamilyName(t.Family), notHere is null, notHere, [.. ListCommand.Features(t.Capabilities)],
            t.Capabilities.Has(TransportFeatures.Pipelined), t.Capabilities.MaxMessageSize, t.Description, WhatItMeetsOn(t, address),
            t.Takes(Tls.Pin), t.Broker, address.IsDefaultPort || address.Port <= 0 ? null : address.Port,
            [.. t.Options.Where(o => o.Scope == OptionScope.Address && o != Tls.Pin).Select(o => o.Name)]);
    }

    private static string WhatItMeetsOn(ITransport t, Uri address) =>
        t.Capabilities.Has(TransportFeatures.InProcess) ? "in-process"
        : t.Capabilities.Has(TransportFeatures.Brokered) && t.Capabilities.Has(TransportFeatures.CrossHost) ? "broker"
        : t.Capabilities.Has(TransportFeatures.CrossHost) ? "network"
        : address.AbsolutePath.StartsWith("/dev/shm/", StringComparison.Ordinal) ? "shared-memory"
        : address.Host.Length == 0 ? "socket-file"
        : "pipe-name";
}

/// <summary>The listing in JSON, generated at build time (a NativeAOT build has no reflection serializer).</summary>
[JsonSourceGenerationOptions(PropertyNamingPolicy = JsonKnownNamingPolicy.SnakeCaseLower, WriteIndented = true)]
[JsonSerializable(typeof(IReadOnlyList<TransportListing>))]
internal sealed partial class ListJson : JsonSerializerContext;
