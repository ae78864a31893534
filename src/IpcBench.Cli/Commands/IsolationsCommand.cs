using System.CommandLine;
using IpcBench.Cli.Containers;
using IpcBench.Cli.Parsing;
using IpcBench.Contract.Options;
using IpcBench.Harness;
using IpcBench.Kit.Files;
using IpcBench.Reporting;
using IpcBench.Reporting.Collecting;
using IpcBench.Reporting.Writers;
using IpcBench.Transports;

namespace IpcBench.Cli.Commands;

/// <summary>
/// <c>ipcbench isolations</c>: what a boundary between client and server costs, each transport measured beside its
/// client, across the isolations a ping has, and in the container pairs it can cross, merged into one run folder whose
/// summary has the transport x isolation table. docker/run.sh readies the engine and the image, then runs it.
/// </summary>
internal static class IsolationsCommand
{
    public const string Name = "isolations";

    public static Command Create()
    {
        var transports = Parsing.Options.List("--transports", "the transports (default tcp,uds,mmf,grpc,zmq)",
            name => TransportRegistry.Names.Contains(name, StringComparer.OrdinalIgnoreCase), "transports of 'ipcbench list'");
        var sizes = Parsing.Options.List("--sizes", "the sizes (default 1,100KB)",
            size => Quantities.ParseSize(size, PingOptions.LengthPrefixLimit) is not null, "sizes such as 1, 1KB or 100KB");
        var isolations = Parsing.Options.List("--isolations", $"where the server runs (default all: {string.Join(",", ContainerPairs.Isolations)})",
            ContainerPairs.Isolations.Contains, $"isolations among {string.Join(", ", ContainerPairs.Isolations)}");
        var count = Parsing.Options.Int("--count", "measured requests of each case", 20000, 1, PingOptions.MaxCount);
        var warmup = Parsing.Options.Int("--warmup", "warm-up requests of each case", 1000, 0, PingOptions.MaxCount);
        var placement = Parsing.Options.Choice("--placement", "both sides on one CPU, or on two (the containers get the matching cpusets)",
            "same-core", "same-core", "cross-core");
        var results = new Option<string?>("--results") { Description = "where the merged run folder goes (as ping's)", HelpName = "DIR" };
        var image = new Option<string>("--image") { Description = "the image of the pairs' server and client", HelpName = "NAME", DefaultValueFactory = _ => "ipcbench" };
        var vmRuntime = new Option<string>("--vm-runtime") { Description = "the VM runtime of the docker-vm-bridge pair's server", HelpName = "NAME", DefaultValueFactory = _ => "kata" };
        var dryRun = new Option<bool>("--dry-run") { Description = "print which pair each transport would cross, and why not where it cannot; run nothing" };
        // The teardown takes the container pairs down: compose down gives each container 10 s to stop, and cut short at
        // 10 s it left a pair running in CI. docker/run.sh waits 60 s for it.
        var command = new Verb(Name, teardown: TimeSpan.FromSeconds(50), description: """
            Measures what a boundary between client and server costs: each transport at each size, beside its client (bare),
            with its server in a network namespace, a container without an image and gVisor (ping's --isolation), and in the
            Docker container pairs it can cross (docker/compose.yaml: a bridge, a shared network namespace, a shared volume,
            a shared IPC namespace, a broker's container; the server under gVisor or a VM runtime). Which pair a transport
            can cross comes from what its client meets its server on ('ipcbench list --json'). Writes one run folder whose
            summary has the transport x isolation table. Needs a Docker engine that answers and the image; docker/run.sh
            readies both and runs this.

            Exit codes: 0 done (what cannot run somewhere is in the table as not supported); 1 a measurement failed; 2 bad options.
            """) { transports, sizes, isolations, count, warmup, placement, results, image, vmRuntime, dryRun };
        command.SetAction(async (parsed, ct) =>
        {
            string[] wanted = parsed.GetValue(isolations) is { Length: > 0 } named ? named : [.. ContainerPairs.Isolations];
            var run = new IsolationsRun(
                parsed.GetValue(transports) is { Length: > 0 } t ? t : ["tcp", "uds", "mmf", "grpc", "zmq"],
                parsed.GetValue(sizes) is { Length: > 0 } s ? s : ["1", "100KB"],
                wanted,
                new PairSettings(parsed.GetValue(count), parsed.GetValue(warmup), parsed.GetValue(placement)!, parsed.GetValue(image)!, parsed.GetValue(vmRuntime)!));
            if (parsed.GetValue(dryRun))
            {
                run.PrintPairs();
                return ExitCodes.Success;
            }
            string root = RunFolder.Root(parsed.GetValue(results));
            if (RunFolder.Unwritable(root) is { } why)
            {
                throw new UsageException($"cannot write results to {root}: {why}");
            }
            string docker = RepositoryRoot.Find(AppContext.BaseDirectory, Environment.CurrentDirectory) is { } repository
                ? Path.Combine(repository, "docker") : throw new UsageException("no IpcBench checkout here: its docker/compose.yaml names the pairs");
            string work = Path.GetDirectoryName(PrivateDirectory.Resolve(PrivateDirectory.DefaultPath("runs"), out string? created))!;
            try
            {
                var sources = await run.MeasureAsync(work, docker, ct);
                var merged = RunMerge.Merge(sources, run.Skipped, DateTimeOffset.UtcNow, CommandLineText.Join("ipcbench", [.. parsed.Tokens.Select(t => t.Value)]));
                Console.WriteLine($"== {MergeCommand.Write(merged, root)}");
                Console.Write(IsolationTable.Markdown(merged));
            }
            finally
            {
                PrivateDirectory.Remove(created);
            }
            return ExitCodes.Success;
        });
        return command;
    }
}
