using System.Diagnostics;
using System.Text.RegularExpressions;
using IpcBench.Cli.Commands;
using IpcBench.Cli.Parsing;
using IpcBench.Contract.Options;
using IpcBench.Harness;
using IpcBench.Harness.Hosting;
using IpcBench.Kit.Files;
using IpcBench.Kit.Processes;
using IpcBench.Reporting;
using IpcBench.Reporting.Collecting;
using IpcBench.Reporting.Writers;

namespace IpcBench.Cli.Guest;

/// <summary>
/// One run of <c>ipcbench vm</c>: the guest made (or found in the cache) for this build, booted under KVM when it boots
/// there within 30 s, else under TCG, one server per transport in it, each measured from the host once every server is
/// READY, and one run folder whose cases carry where their server ran (isolation=vm, or vm-emulated: an emulator's
/// figures, never a VM's, printed with that label too).
/// </summary>
internal sealed partial class VmRun(string[] transports, string[] sizes, int count, int warmup, string? results)
{
    private const int FirstPort = 5000;
    private static readonly TimeSpan KvmBoot = TimeSpan.FromSeconds(30), PingBound = TimeSpan.FromMinutes(30);

    public async Task<int> RunAsync(GuestMachine machine, string accel, TimeSpan bootTimeout, string cache, int owner, bool check, CancellationToken ct)
    {
        var cycle = Stopwatch.StartNew();
        string app = Path.TrimEndingDirectorySeparator(AppContext.BaseDirectory);
        if (!File.Exists(Path.Combine(app, "libcoreclr.so")))
        {
            throw new UsageException($"{app} is not a self-contained build, and the guest has no .NET: run a self-contained publish's ipcbench (docker/vm.sh does)");
        }
        string init = RepositoryRoot.Find(app, Environment.CurrentDirectory) is { } repository ? Path.Combine(repository, "docker", "vm", "init")
            : throw new UsageException("no IpcBench checkout here: its docker/vm/init is the guest's init");
        if (accel == "kvm" && !KvmUsable())
        {
            throw new UnsupportedException("--accel kvm, but /dev/kvm is missing or not writable");
        }
        await GuestMachine.SweepGoneAsync(cache, ct);
        var servers = Servers(transports, line => Console.WriteLine("   " + line));
        var image = await GuestImage.PlanAsync(app, init, ct);
        Directory.CreateDirectory(cache);
        await image.MakeAsync(cache, owner, ct);
        string label, booted;
        await using (machine)
        {
            await machine.MakeTapAsync(ct);
            (label, var boot) = await BootAsync(machine, image, accel, string.Join(',', servers.Select(s => $"{s.Transport}:{s.Port}")), ct);
            var addresses = await ReadyAsync(machine, servers, label, bootTimeout - boot.Elapsed, ct);
            booted = $"{boot.Elapsed.TotalSeconds:0} s";
            string initAt = machine.Lines().Select(l => InitLine().Match(l)).FirstOrDefault(m => m.Success)?.Groups[1].Value ?? "?";
            Console.WriteLine($"== booted ({label}): every server READY after {booted} (the guest's init started {initAt} s into its boot)");
            await MeasureAsync(machine, addresses, label, ct);
        }
        if (check)
        {
            if (await machine.LeftBehindAsync() is { } left)
            {
                throw new InvalidOperationException(left);
            }
            Console.WriteLine($"== --check: booted in {booted}, the whole cycle {cycle.Elapsed.TotalSeconds:0} s ({label}); nothing left behind");
        }
        return ExitCodes.Success;
    }

    /// <summary>The transports whose server the guest runs, those that cross a network, each on a port of its own; why not for the rest.</summary>
    internal static List<(string Transport, int Port)> Servers(string[] transports, Action<string> notInTheGuest)
    {
        var servers = new List<(string, int)>();
        foreach (string name in transports)
        {
            var listing = TransportListing.Of(TransportArgument.Resolve(name), null);
            if (listing.Broker is not null)
            {
                notInTheGuest($"{name}: not supported in the guest: it needs a broker");
            }
            else if (listing.MeetsOn == "network")
            {
                servers.Add((name, FirstPort + servers.Count));
            }
            else
            {
                notInTheGuest($"{name}: not supported in the guest: it does not cross a network (it meets its client on: {listing.MeetsOn})");
            }
        }
        return servers.Count > 0 ? servers : throw new UnsupportedException($"none of {string.Join(' ', transports)} can run in the guest");
    }

    /// <summary>Boots under KVM when it reaches its init within 30 s here, else under TCG; the label its figures carry, and the boot's clock.</summary>
    private static async Task<(string Label, Stopwatch Clock)> BootAsync(GuestMachine machine, GuestImage image, string accel, string servers, CancellationToken ct)
    {
        var clock = Stopwatch.StartNew();
        if (accel != "tcg" && KvmUsable())
        {
            machine.Boot(image, "kvm", servers);
            if (await machine.WaitForAsync(InitLine(), KvmBoot, ct))
            {
                return ("vm", clock);
            }
            if (accel == "kvm")
            {
                Console.Error.WriteLine(machine.Tail());
                throw new UnsupportedException("KVM did not boot the guest within 30 s");
            }
            Console.WriteLine($"== KVM did not boot the guest within 30 s ({machine.QemuSaid()}): emulating it (TCG)");
            await machine.StopAsync();
        }
        clock.Restart();
        machine.Boot(image, "tcg", servers);
        return ("vm-emulated", clock);
    }

    /// <summary>Each server's address once it is READY; one that ended with 3 (it cannot run in the guest) said why, and left out.</summary>
    private static async Task<List<(string Transport, string Address)>> ReadyAsync(GuestMachine machine, List<(string Transport, int Port)> servers,
        string label, TimeSpan within, CancellationToken ct)
    {
        var ready = new List<(string, string)>();
        var clock = Stopwatch.StartNew();
        foreach (var (transport, _) in servers)
        {
            var said = new Regex($"^ipcbench-vm: {Regex.Escape(transport)} (READY |ended )");
            if (!await machine.WaitForAsync(said, within - clock.Elapsed, ct))
            {
                Console.Error.WriteLine(machine.Tail());
                throw new InvalidOperationException($"the guest's {transport} server was not READY within {within.TotalSeconds:0} s");
            }
            string line = machine.Lines().First(said.IsMatch);
            if (line.Contains(" READY ", StringComparison.Ordinal))
            {
                ready.Add((transport, line[(line.IndexOf(" READY ", StringComparison.Ordinal) + 7)..].Trim().Replace("://0.0.0.0:", $"://{GuestMachine.GuestIp}:", StringComparison.Ordinal)));
            }
            else if (line.EndsWith(" ended 3", StringComparison.Ordinal))
            {
                string prefix = $"ipcbench-vm: {transport}: ";
                string why = machine.Lines().LastOrDefault(l => l.StartsWith(prefix, StringComparison.Ordinal))?[prefix.Length..] ?? "";
                Console.WriteLine($"   {transport} in {label}: not supported: {why.Replace("ipcbench serve: ", "", StringComparison.Ordinal)}");
            }
            else
            {
                Console.Error.WriteLine(machine.Tail());
                throw new InvalidOperationException($"the guest's {transport} server ended before it was READY ({line})");
            }
        }
        return ready;
    }

    /// <summary>Each server at each size, a ping from the host (a process each); the runs merged into one run folder, labelled.</summary>
    private async Task MeasureAsync(GuestMachine machine, List<(string Transport, string Address)> servers, string label, CancellationToken ct)
    {
        string runs = Path.GetDirectoryName(PrivateDirectory.Resolve(PrivateDirectory.DefaultPath("runs"), out string? created))!;
        try
        {
            string note = label == "vm" ? "" : " (an emulator: never compare)";
            var measured = new List<MergeSource>();
            foreach (var (transport, address) in servers)
            {
                foreach (string size in sizes)
                {
                    int bytes = Quantities.ParseSize(size, PingOptions.LengthPrefixLimit)!.Value;
                    string json = Path.Combine(runs, $"{transport}-{bytes}.json");
                    var info = ServerCommand.Resolve().StartInfo(["ping", "--transport", transport, "--server", address, "--wait-for-server", "30s",
                        "--count", $"{count}", "--warmup", $"{warmup}", "--size", size, "--placement", "none", "--no-results", "--json", json]);
                    var ended = await BoundedChild.RunAsync(info, $"ping of the guest's {transport} server", PingBound, ct);
                    if (ended.ExitCode == ExitCodes.Unsupported)
                    {
                        Console.WriteLine($"   {transport} at {Units.Size(bytes)} in {label}: not supported: {NotSupported().Replace(ended.LastError, "")}");
                        continue;
                    }
                    if (ended.ExitCode != 0)
                    {
                        Console.Error.WriteLine(ended.Stderr.TrimEnd() + "\n" + machine.Tail());
                        throw new InvalidOperationException($"ping of the guest's {transport} server at {size} failed (exit {ended.ExitCode})");
                    }
                    var run = ResultsFile.Read(json);
                    var only = run.Cases.Single();
                    Console.WriteLine($"   {transport} at {Units.Size(bytes)} in {label}: {Units.Latency(only.LatencyUs)}{note}");
                    measured.Add(new MergeSource(run, label));
                }
            }
            if (measured.Count == 0)
            {
                throw new UnsupportedException("nothing could be measured in the guest");
            }
            if (results is not null) // one run folder whose cases name where their server ran: isolation=vm-emulated (or vm)
            {
                var merged = RunMerge.Merge(measured, [], DateTimeOffset.UtcNow, CommandLineText.Join("ipcbench", Environment.GetCommandLineArgs()[1..]));
                Console.WriteLine($"== {MergeCommand.Write(merged, results)}");
            }
        }
        finally
        {
            PrivateDirectory.Remove(created);
        }
    }

    /// <summary>What comes before the reason in ping's "not supported" line.</summary>
    [GeneratedRegex("^ipcbench ping: (.* not supported here: |.* does not run here: )?")]
    private static partial Regex NotSupported();

    [GeneratedRegex("ipcbench-vm: init ([0-9.]+)")] // not ^: the firmware's escape sequences come first
    private static partial Regex InitLine();

    private static bool KvmUsable()
    {
        try
        {
            using var kvm = File.Open("/dev/kvm", FileMode.Open, FileAccess.ReadWrite);
            return true;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return false;
        }
    }
}
