using System.Text.Json;
using System.Text.Json.Serialization;
using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Harness.Measurement;
using IpcBench.Harness.Results;

namespace IpcBench.Harness.Running;

/// <summary>
/// A case as a plan to run: what sets it apart (its <see cref="CaseKey"/>) and how much of it to measure. <c>ping</c> parses
/// its options into one, a plan holds many, a client process is handed its share of one on stdin; <see cref="CaseRunner"/>
/// runs each the same way.
/// </summary>
public sealed record CaseSpec
{
    /// <summary>What is measured: transport, its options that shape the case, sizes, scenario, load, placement, isolation, runtime.</summary>
    public required CaseKey Key { get; init; }

    /// <summary>Every option of the transport given, as a query ("io=async&amp;timeout=2s"): the key names only those that set the case apart.</summary>
    public string Options { get; init; } = "";

    /// <summary>Measured requests, over every client.</summary>
    public int Count { get; init; } = 10_000;

    /// <summary>Measure for this long instead of <see cref="Count"/> requests.</summary>
    public TimeSpan Duration { get; init; }

    /// <summary>Requests sent first and not measured, over every client.</summary>
    public int Warmup { get; init; } = 1_000;

    /// <summary>Warm up for this long instead of <see cref="Warmup"/> requests.</summary>
    public TimeSpan WarmupDuration { get; init; }

    /// <summary>A pause after each reply: sparse traffic.</summary>
    public TimeSpan Gap { get; init; }

    /// <summary>A server already running (its address, which may hold a password); null: the runner starts one.</summary>
    public Uri? Server { get; init; }

    /// <summary>How long to retry connecting to <see cref="Server"/>, which may still be starting elsewhere.</summary>
    public TimeSpan WaitForServer { get; init; }

    /// <summary>
    /// The runtime whose build runs the client (<see cref="ClientRuntime.Build"/>), as <c>--runtime</c> asks; null: this
    /// process runs it, and the key names this process's runtime.
    /// </summary>
    public string? ClientBuild { get; init; }

    /// <summary>The options given, checked against what <paramref name="transport"/> takes.</summary>
    public OptionValues OptionValues(ITransport transport) => Contract.Options.OptionValues.Parse(AddressQuery.Parse(Options), transport);

    /// <summary>The loop the spec asks for.</summary>
    public LoopOptions Loop(ITransport transport) => new(Key.Size, Count, Warmup, transport.Capabilities.MayLoseMessages, Gap)
    {
        ReplySize = Key.ReplySize,
        Clients = Key.Clients,
        InFlight = Key.InFlight,
        Rate = Key.Rate,
        Duration = Duration,
        WarmupDuration = WarmupDuration,
    };

    /// <summary>
    /// Why the spec asks for something no case can be (a usage error: the start scenario with several clients), or null.
    /// Asked before anything runs; what cannot run on this machine is <see cref="CaseRunner.RefusesAsync"/>'s.
    /// </summary>
    public string? Problem()
    {
        if (Key.ClientProcesses > Key.Clients)
        {
            return $"--client-processes {Key.ClientProcesses} needs at least as many --clients, not {Key.Clients}";
        }
        if (Key.Scenario != CaseKey.Steady && (Key.Clients * Key.InFlight > 1 || Key.ClientProcesses > 1 || Key.Rate > 0
                || Duration > TimeSpan.Zero || WarmupDuration > TimeSpan.Zero || Key.ReplySize is not null))
        {
            return $"--scenario {Key.Scenario} runs one echo cycle after another: --clients, --client-processes, --in-flight, --rate, --duration, --reply-size and a --warmup time are for the steady scenario";
        }
        if (ClientBuild is not null && Key.Scenario == CaseKey.Connect)
        {
            return "--runtime runs the steady or start scenario's client from that build; --scenario connect measures in this process";
        }
        if (Server is not null && Key.Isolation is not null)
        {
            return "--isolation places the server ping starts; a --server runs where it runs";
        }
        if (WaitForServer > TimeSpan.Zero && Server is null)
        {
            return "--wait-for-server waits for a --server; the server ping starts is waited for anyway";
        }
        return Server is not null && !string.Equals(Server.Scheme, Key.Transport, StringComparison.OrdinalIgnoreCase)
            ? $"--server {Server} is not a {Key.Transport}:// address"
            : null;
    }

    /// <summary>The spec as one line of JSON, as a client process is handed it on stdin (never in its arguments: the server's address may hold a password).</summary>
    public string ToJson() => JsonSerializer.Serialize(this, SpecJson.Default.CaseSpec);

    public static CaseSpec FromJson(string json) =>
        JsonSerializer.Deserialize(json, SpecJson.Default.CaseSpec) ?? throw new JsonException("a case spec holds null");
}

/// <summary>Specs in JSON, generated at build time: a client process may be a NativeAOT build.</summary>
[JsonSourceGenerationOptions(PropertyNamingPolicy = JsonKnownNamingPolicy.SnakeCaseLower)]
[JsonSerializable(typeof(CaseSpec))]
internal sealed partial class SpecJson : JsonSerializerContext;
