using System.CommandLine;
using IpcBench.Cli.Guest;
using IpcBench.Cli.Parsing;
using IpcBench.Contract.Options;
using IpcBench.Transports;

namespace IpcBench.Cli.Commands;

/// <summary>
/// <c>ipcbench vm</c> (hidden: docker/vm.sh readies what it needs and runs it): the server in a qemu guest of its own,
/// measured from the host over a tap device.
/// </summary>
internal static class VmCommand
{
    public static Command Create()
    {
        var transports = new Argument<string[]>("TRANSPORT") { Description = "transports that cross a network (default tcp)", Arity = ArgumentArity.ZeroOrMore };
        transports.Validators.Add(result =>
        {
            if (result.GetValueOrDefault<string[]>().FirstOrDefault(t => !TransportRegistry.Names.Contains(t, StringComparer.OrdinalIgnoreCase)) is { } unknown)
            {
                result.AddError($"unknown transport '{unknown}' (see ipcbench list)");
            }
        });
        var check = new Option<bool>("--check") { Description = "CI's short proof of the route: 1 B, 200 requests after 20 warm-up; no run folder unless --results" };
        var sizes = Parsing.Options.List("--sizes", "the sizes (default 1,100KB)",
            size => Quantities.ParseSize(size, PingOptions.LengthPrefixLimit) is not null, "sizes such as 1, 1KB or 100KB");
        var count = Parsing.Options.Int("--count", "measured requests of each case", 20000, 1, PingOptions.MaxCount);
        var warmup = Parsing.Options.Int("--warmup", "warm-up requests of each case", 1000, 0, PingOptions.MaxCount);
        var results = new Option<string?>("--results") { Description = "where the run folder goes (as ping's)", HelpName = "DIR" };
        var accel = Parsing.Options.Choice("--accel", "kvm when it boots the guest within 30 s, else tcg (an emulator)", "auto", "auto", "kvm", "tcg");
        var bootTimeout = Parsing.Options.Int("--boot-timeout", "seconds until every server in the guest is READY", 300, 1, 3600);
        var owner = Parsing.Options.Int("--owner", "the pid of the docker/vm.sh this run is for: it names the tap (ipcbvmPID) and the half-built guest", 0, 1);
        var state = new Option<string>("--state") { Description = "that vm.sh's private state folder: the console, qemu's pid", HelpName = "DIR", Required = true };
        var cache = new Option<string>("--cache") { Description = "where guests are kept, one per recipe", HelpName = "DIR", DefaultValueFactory = _ => "/var/lib/ipcbench-vm" };
        // The teardown stops qemu (SIGTERM, 10 s, then SIGKILL) and removes the tap (an ip command, quick unless the
        // machine hangs); docker/vm.sh waits 30 s for it, and removes a tap the verb left.
        var command = new Verb("vm", "The server in a qemu guest of its own, measured from the host over a tap (docker/vm.sh runs it).",
            teardown: TimeSpan.FromSeconds(25))
        {
            transports, check, sizes, count, warmup, results, accel, bootTimeout, owner, state, cache,
        };
        command.Hidden = true;
        command.SetAction(async (parsed, ct) =>
        {
            bool checking = parsed.GetValue(check);
            var run = new VmRun(
                parsed.GetValue(transports) is { Length: > 0 } t ? t : ["tcp"],
                checking ? ["1"] : parsed.GetValue(sizes) is { Length: > 0 } s ? s : ["1", "100KB"],
                checking ? 200 : parsed.GetValue(count), checking ? 20 : parsed.GetValue(warmup),
                parsed.GetValue(results) is not null || !checking ? Reporting.Collecting.RunFolder.Root(parsed.GetValue(results)) : null);
            int pid = parsed.GetValue(owner) is > 0 and var p ? p : throw new UsageException("--owner names the vm.sh this run is for");
            return await run.RunAsync(new GuestMachine($"ipcbvm{pid}", parsed.GetValue(state)!), parsed.GetValue(accel)!,
                TimeSpan.FromSeconds(parsed.GetValue(bootTimeout)), parsed.GetValue(cache)!, pid, checking, ct);
        });
        return command;
    }
}
