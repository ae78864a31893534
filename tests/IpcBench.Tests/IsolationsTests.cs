using System.Text.RegularExpressions;
using IpcBench.Cli.Commands;
using IpcBench.Cli.Containers;
using IpcBench.Reporting;
using IpcBench.Transports;

namespace IpcBench.Tests;

/// <summary>
/// <c>ipcbench isolations</c> (docker/run.sh's measurements): which container pair each transport crosses, from what its
/// client meets its server on; and, against stand-ins for docker and docker-compose, that a runtime the engine lacks or
/// cannot start refuses its pairs with why, that its preflight container runs only on a link-local network it made and
/// removed, that a server's own refusal (exit 3) is a skipped case at that size, that the project is taken down, and
/// that the projects of gone runs are (and no one else's).
/// docker/ci.sh runs the pairs for real.
/// </summary>
public sealed partial class IsolationsTests : IDisposable
{
    private readonly string _dir = Directory.CreateTempSubdirectory("ipcbench-isolations-").FullName;

    public void Dispose() => Directory.Delete(_dir, recursive: true);

    private static List<PairStep> Steps(string transport) =>
        [.. ContainerPairs.For(TransportListing.Of(TransportRegistry.Get(transport), null), ContainerPairs.All("kata"))];

    [Fact]
    public void Each_transport_crosses_the_pairs_its_meeting_place_allows()
    {
        Assert.Equal(["shared-netns", "bridge", "vm-bridge", "sandbox-bridge", "sandbox-hostnet-bridge"], Steps("tcp").Select(s => s.Pair.Name));
        Assert.All(Steps("tcp"), s => Assert.Null(s.Refusal));
        Assert.Equal(["volume", "sandbox-volume"], Steps("uds").Select(s => s.Pair.Name));
        Assert.Equal("uds:///run/ipcbench/s.sock", Steps("uds")[0].Address);
        Assert.Equal("mmf:///dev/shm/ipcbench-channel", Assert.Single(Steps("mmf")).Address);
        var nats = Assert.Single(Steps("nats"));
        Assert.Equal(("broker", "nats://169.254.77.20:4222/?subject=ipcbench", "ipcbench-broker-nats:bookworm"), (nats.Pair.Name, nats.Address, nats.BrokerImage));
        Assert.Equal("redis-uds:///run/ipcbench/redis.sock?channel=ipcbench", Assert.Single(Steps("redis-uds")).Address);
        Assert.All(Steps("tcp-tls"), s => Assert.Contains("pin=", s.Refusal)); // its pin is in the server's READY line only
        Assert.Equal("kata", Steps("tcp").Single(s => s.Pair.Name == "vm-bridge").Pair.Runtime);
    }

    [Fact]
    public void Every_address_a_pair_is_told_is_link_local_or_a_file()
    {
        foreach (string name in TransportRegistry.Names)
        {
            foreach (var step in Steps(name).Where(s => !string.IsNullOrEmpty(s.Address)))
            {
                var address = new Uri(step.Address!);
                Assert.True(address.Host.Length == 0 || address.Host.StartsWith("169.254.", StringComparison.Ordinal) || step.Address!.StartsWith($"{name}://ipcbench", StringComparison.Ordinal),
                    $"{name} in {step.Pair.Isolation}: {step.Address}");
            }
        }
    }

    [Fact]
    public async Task Refused_runtimes_and_a_refusing_server_are_skipped_cases_the_preflight_on_a_network_it_made()
    {
        Assert.SkipWhen(OperatingSystem.IsWindows(), "the stand-ins are shell scripts");
        string bin = Directory.CreateDirectory(Path.Combine(_dir, "bin")).FullName, log = Path.Combine(_dir, "argv");
        using (var ended = System.Diagnostics.Process.Start("true")!)
        {
            await ended.WaitForExitAsync(TestContext.Current.CancellationToken);
            // The projects in the engine: a gone run's, one whose pid runs something else now (this test's), the verb's own
            // ($PPID: the stand-in's parent), another's.
            File.WriteAllText(Path.Combine(_dir, "projects"), $"ipcbench-isolations-{ended.Id}\nipcbench-isolations-{Environment.ProcessId}\nsomeone-elses\n");
        }
        StandIn(bin, "docker", log, $$"""
            case "$1 $2" in
              "ps -a") cat '{{_dir}}/projects'; echo "ipcbench-isolations-$PPID" ;;
              "info --format") echo "ipcbench-runsc runc" ;;
              "run --rm") echo "docker: Error response from daemon: starting container: the stand-in refuses" >&2; exit 125 ;;
              "inspect -f") case "$3" in *ExitCode*) echo 3 ;; *) echo runc ;; esac ;;
              "logs c0ffee") echo "ipcbench serve: not supported here: the stand-in's server says no" >&2 ;;
              "logs c1ient") echo "ipcbench ping: the stand-in's client cannot carry this payload" >&2 ;;
            esac
            """);
        StandIn(bin, "docker-compose", log, """
            case " $* " in
              *" up "*) [ "$IPCBENCH_SIZE" = 100KB ] && exit 3; exit 1 ;; # compose exits with the client's code: 3 when it refused
              *" ps "*-client*) echo c1ient ;;
              *" ps "*) echo c0ffee ;;
            esac
            """);
        string results = Path.Combine(_dir, "results");

        var (exit, stdout, stderr) = await CliTests.RunWithAsync(new Dictionary<string, string> { ["PATH"] = $"{bin}:{Environment.GetEnvironmentVariable("PATH")}" },
            "isolations", "--transports", "tcp", "--sizes", "1,100KB", "--count", "200", "--warmup", "20",
            "--isolations", "none,docker-bridge,docker-vm-bridge,docker-sandbox-bridge", "--results", results);

        Assert.True(exit == 0, $"exit {exit}: {stderr}\n{stdout}");
        var run = ResultsFile.Read(Assert.Single(Directory.GetDirectories(results)));
        Assert.All(run.Cases, c => Assert.Null(c.Key.Isolation)); // bare, at both sizes
        Assert.Equal(2, run.Cases.Count);
        var skipped = run.Skipped.ToLookup(s => s.Isolation!).ToDictionary(g => g.Key, g => g.OrderBy(s => s.Size).ToList());
        Assert.Contains("no runtime kata is registered", Assert.Single(skipped["docker-vm-bridge"]).Reason); // at every size
        Assert.Null(skipped["docker-vm-bridge"][0].Size);
        Assert.Equal("a container under ipcbench-runsc does not start here: Error response from daemon: starting container: the stand-in refuses",
            Assert.Single(skipped["docker-sandbox-bridge"]).Reason);
        Assert.Equal([("not supported here: the stand-in's server says no", 1), ("the stand-in's client cannot carry this payload", 102400)],
            skipped["docker-bridge"].Select(s => (s.Reason, s.Size ?? 0)));
        string[] argv = File.ReadAllLines(log);
        string preflight = Assert.Single(argv, l => l.StartsWith("docker run ", StringComparison.Ordinal));
        string network = preflight.Split(' ').SkipWhile(a => a != "--network").ElementAt(1);
        Assert.Contains(argv, l => l.StartsWith("docker network create --subnet 169.254.", StringComparison.Ordinal) && l.EndsWith(" " + network, StringComparison.Ordinal));
        Assert.Contains($"docker network rm {network}", argv);
        string[] projects = File.ReadAllLines(Path.Combine(_dir, "projects"));
        string own = argv.Select(l => OwnProject().Match(l)).First(m => m.Success).Groups[1].Value;
        int firstUp = Array.FindIndex(argv, l => l.Contains(" up ", StringComparison.Ordinal));
        foreach (string project in (string[])[projects[0], projects[1], own])
        {
            // The gone runs' projects before any pair runs; the verb's own only once its pairs have run, never by the sweep.
            int down = Array.FindIndex(argv, l => l.StartsWith($"docker-compose -p {project} ", StringComparison.Ordinal) && l.EndsWith(" down -v --remove-orphans", StringComparison.Ordinal));
            Assert.True(project == own ? down > firstUp : down is >= 0 && down < firstUp, $"{project}: first down at {down}, first up at {firstUp}");
            Assert.Contains($"docker ps -aq --filter label=com.docker.compose.project={project}", argv); // what outlives down, by its label
        }
        Assert.DoesNotContain(argv, l => l.Contains("someone-elses", StringComparison.Ordinal));
        Assert.StartsWith($"docker volume ls -q --filter label=com.docker.compose.project={own}", argv[^1]); // the own project, last
    }

    [Fact]
    public async Task A_dry_run_names_each_pair_and_runs_nothing()
    {
        var (exit, stdout, stderr) = await CliTests.RunWithAsync(null, "isolations", "--transports", "uds,tcp-tls", "--isolations", "docker-volume,docker-bridge", "--dry-run");

        Assert.True(exit == 0, $"exit {exit}: {stderr}");
        string[] lines = stdout.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.Equal(2, lines.Length);
        Assert.Equal("uds in docker-volume: uds:///run/ipcbench/s.sock, server under runc", lines[0]);
        Assert.StartsWith("tcp-tls in docker-bridge: not supported: its client trusts only the certificate its server makes", lines[1]);
    }

    [GeneratedRegex(@"^docker-compose -p (ipcbench-isolations-\d+) .* up ")]
    private static partial Regex OwnProject();

    private static void StandIn(string bin, string name, string log, string body)
    {
        string path = Path.Combine(bin, name);
        File.WriteAllText(path, $"#!/bin/sh\necho \"{name} $*\" >>'{log}'\n{body}\n");
        if (!OperatingSystem.IsWindows())
        {
            File.SetUnixFileMode(path, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute);
        }
    }
}
