using IpcBench.Cli;
using IpcBench.Core;
using IpcBench.Core.Streams;

namespace IpcBench.Conformance;

/// <summary>The cases every conformance test runs over: each registered transport that runs here.</summary>
public static class TransportCases
{
    public static IEnumerable<ITransport> Runnable => TransportRegistry.Supported;

    public static TheoryData<string> All => [.. Runnable.Select(t => t.Name)];

    public static TheoryData<string, IoMode> AllWithIo
    {
        get
        {
            var data = new TheoryData<string, IoMode>();
            foreach (var t in Runnable)
            {
                data.Add(t.Name, IoMode.Sync);
                data.Add(t.Name, IoMode.Async);
            }
            return data;
        }
    }

    /// <summary>Transports that carry the length-prefix framing over a byte stream.</summary>
    public static TheoryData<string> Streams => [.. Runnable.Where(t => t is StreamTransport).Select(t => t.Name)];
}
