using System.CommandLine;
using System.Text.Json;
using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Harness;
using IpcBench.Transports;

namespace IpcBench.Cli.Commands;

/// <summary><c>ipcbench list</c>: every registered transport, whether it runs here, what it guarantees, and its options.</summary>
internal static class ListCommand
{
    public static Command Create()
    {
        var command = new Command("list", "Every registered transport: its family (sockets, local, messaging, rpc: how the reports group it), whether it runs on this machine (and if not, why; \"retired\": not on .NET 5 and later, listed, never measured), what it "
            + "guarantees (reliable, message boundaries, cross-host, brokered, in-process: not IPC, a baseline; one-client when its server serves one client at a "
            + "time), how many requests a connection carries at once (--in-flight), its largest message, what it really is on this OS, "
            + "and the options each takes (--option NAME=VALUE on ping and serve).");
        var json = new Option<bool>("--json") { Description = "print the transports as JSON, for scripts: each one's name, whether it runs here, its features, what a client meets its server on" };
        command.Options.Add(json);
        command.SetAction(parsed =>
        {
            if (parsed.GetValue(json))
            {
                Console.Out.WriteLine(JsonSerializer.Serialize(TransportListing.All(Probe()), ListJson.Default.IReadOnlyListTransportListing));
                return ExitCodes.Success;
            }
            PrintTransports();
            Console.WriteLine();
            PrintOptions();
            return ExitCodes.Success;
        });
        return command;
    }

    private static void PrintTransports()
    {
        var notHere = Probe();
        var rows = TransportRegistry.All.Select((t, i) => (Transport: t, NotHere: notHere[i])).Select(r => new[]
        {
            r.Transport.Name,
            Figures.FamilyName(r.Transport.Family),
            r.NotHere is null ? "yes" : "no",
            string.Join(",", Features(r.Transport.Capabilities)),
            r.Transport.Capabilities.Has(TransportFeatures.Pipelined) ? "several" : "one at a time",
            FormatSize(r.Transport.Capabilities.MaxMessageSize),
            r.NotHere is null ? r.Transport.Description : $"{r.Transport.Description} -- not here: {r.NotHere}",
        }).Concat(RetiredTransport.All.Select(r => new[] { r.Name, Figures.FamilyName(r.Family), "retired", "-", "-", "-", r.Explanation }));
        PrintTable(["TRANSPORT", "FAMILY", "RUNS", "FEATURES", "IN FLIGHT", "MAX MSG", "WHAT IT IS"], rows);
    }

    /// <summary>
    /// Why each registered transport does not run here (null: it does), in the registry's order: every transport probed at
    /// once, each within its bound, so that a missing broker costs a second once, not once each.
    /// </summary>
    private static string?[] Probe()
    {
        var probes = TransportRegistry.All.Select(t => ClientRuntime.Refuses(t) is { } refused ? Task.FromResult<string?>(refused)
            : t.ProbeAsync(null, ServerWait.ProbeBound).AsTask()).ToArray();
        Task.WaitAll(probes);
        return [.. probes.Select(p => p.Result)];
    }

    /// <summary>Each option once, with the transports that take it (an option several transports share is one declaration).</summary>
    private static void PrintOptions()
    {
        Console.WriteLine("Options (ping and serve: --option NAME=VALUE; " + string.Join(", ", TransportRegistry.Shorthands.Select(o => $"--{o.Name}"))
            + " are short for the same):");
        var rows = TransportRegistry.All
            .SelectMany(t => OptionValues.Of(t).Where(o => o.Scope != OptionScope.Address).Select(o => (Transport: t.Name, Option: o)))
            .GroupBy(x => x.Option, ReferenceEqualityComparer.Instance)
            .OrderBy(g => OptionValues.Common.Contains(g.Key)) // each transport's own first, then those every transport takes
            .Select(g => (Option: (TransportOption)g.Key!, Transports: g.Select(x => x.Transport).ToList()))
            .Select(g => new[]
            {
                g.Transports.Count == TransportRegistry.All.Count ? "every transport" : string.Join(",", g.Transports),
                $"{g.Option.Name}={g.Option.Placeholder}",
                g.Option.Default,
                g.Option.Help,
            });
        PrintTable(["TRANSPORTS", "OPTION", "DEFAULT", "WHAT IT CHANGES"], rows);
    }

    private static void PrintTable(string[] header, IEnumerable<string[]> rows)
    {
        var all = rows.Prepend(header).ToList();
        int[] widths = [.. Enumerable.Range(0, header.Length - 1).Select(i => all.Max(r => r[i].Length))];
        foreach (var row in all)
        {
            Console.WriteLine(string.Concat(row.Take(widths.Length).Select((cell, i) => cell.PadRight(widths[i] + 2))) + row[^1]);
        }
    }

    public static IEnumerable<string> Features(TransportCapabilities caps)
    {
        if (caps.Has(TransportFeatures.Reliable)) yield return "reliable";
        if (caps.Has(TransportFeatures.MessageBoundaries)) yield return "messages";
        if (caps.Has(TransportFeatures.CrossHost)) yield return "cross-host";
        if (caps.Has(TransportFeatures.Brokered)) yield return "brokered";
        if (caps.Has(TransportFeatures.InProcess)) yield return "in-process";
        if (caps.OneClientAtATime is not null) yield return "one-client";
    }

    public static string FormatSize(int bytes) => bytes switch
    {
        >= 1024 * 1024 when bytes % (1024 * 1024) == 0 => $"{bytes / (1024 * 1024)} MiB",
        >= 1024 when bytes % 1024 == 0 => $"{bytes / 1024} KiB",
        _ => $"{bytes} B",
    };
}
