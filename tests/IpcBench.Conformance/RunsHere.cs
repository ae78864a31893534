using System.Collections.Concurrent;
using IpcBench.Contract;
using IpcBench.Harness;
using IpcBench.Transports;

namespace IpcBench.Conformance;

/// <summary>
/// Skips the running test, saying why, where the transport it needs does not run here (its library, its host program or its
/// broker is missing). Asked when a test runs, never while tests are discovered: a broker slow to answer then would drop its
/// transport's cases without a word, where a skip is counted and shows its reason.
/// </summary>
public static class RunsHere
{
    /// <summary>How long a broker may take to answer before its transport's tests are skipped: one under load answers late.</summary>
    private static readonly TimeSpan BrokerPatience = TimeSpan.FromSeconds(10);

    /// <summary>Each transport's verdict, asked once per test run: a missing broker costs its patience once, not once a case.</summary>
    private static readonly ConcurrentDictionary<string, Lazy<Task<string?>>> Verdicts = new();

    public static async Task RequireAsync(string transportName)
    {
        var transport = TransportRegistry.Get(transportName);
        if (await Verdicts.GetOrAdd(transport.Name, _ => new(() => WhyNotAsync(transport))).Value is { } reason)
        {
            Assert.Skip($"{transport.Name} does not run here: {reason}");
        }
    }

    private static async Task<string?> WhyNotAsync(ITransport transport) =>
        transport.Capabilities.Has(TransportFeatures.Brokered)
            ? await ServerWait.UnsupportedReasonAsync(transport, null, BrokerPatience, CancellationToken.None)
            : transport.UnsupportedReason;
}
