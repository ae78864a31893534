using IpcBench.Core;

namespace IpcBench.Cli.Commands;

/// <summary><c>ipcbench list</c>: every registered transport, whether it runs here and what it guarantees.</summary>
internal static class ListCommand
{
    public const string Help = """
        Usage: ipcbench list

        Lists every registered transport: whether it runs on this machine (and if not, why),
        what it guarantees (reliable, message boundaries, cross-host, brokered), its largest
        message, and what it really is on this OS.
        """;

    public static int Run(IReadOnlyList<string> args)
    {
        Arguments.Parse(args, [], []);
        var rows = TransportRegistry.All.Select(t => new[]
        {
            t.Name,
            t.UnsupportedReason is null ? "yes" : "no",
            string.Join(",", Features(t.Capabilities)),
            FormatSize(t.Capabilities.MaxMessageSize),
            t.UnsupportedReason is null ? t.Description : $"{t.Description} -- not here: {t.UnsupportedReason}",
        }).ToList();
        string[] header = ["TRANSPORT", "RUNS", "FEATURES", "MAX MSG", "WHAT IT IS"];
        int[] widths = Enumerable.Range(0, header.Length - 1)
            .Select(i => rows.Select(r => r[i].Length).Append(header[i].Length).Max()).ToArray();
        foreach (var row in rows.Prepend(header))
        {
            Console.WriteLine(string.Concat(row.Take(widths.Length).Select((cell, i) => cell.PadRight(widths[i] + 2))) + row[^1]);
        }
        return 0;
    }

    private static IEnumerable<string> Features(TransportCapabilities caps)
    {
        if (caps.Has(TransportFeatures.Reliable)) yield return "reliable";
        if (caps.Has(TransportFeatures.MessageBoundaries)) yield return "messages";
        if (caps.Has(TransportFeatures.CrossHost)) yield return "cross-host";
        if (caps.Has(TransportFeatures.Brokered)) yield return "brokered";
    }

    public static string FormatSize(int bytes) => bytes switch
    {
        >= 1024 * 1024 when bytes % (1024 * 1024) == 0 => $"{bytes / (1024 * 1024)} MiB",
        >= 1024 when bytes % 1024 == 0 => $"{bytes / 1024} KiB",
        _ => $"{bytes} B",
    };
}
