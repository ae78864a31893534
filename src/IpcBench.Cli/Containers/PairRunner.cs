using System.Diagnostics;
using System.Text.RegularExpressions;
using IpcBench.Kit.Processes;

namespace IpcBench.Cli.Containers;

/// <summary>What every pair of a run shares: the client's settings, each side's CPUs, the image, the VM runtime.</summary>
internal sealed record PairSettings(int Count, int Warmup, string Placement, string Image, string VmRuntime)
{
    /// <summary>Each container's cpuset: both on CPU 0 (same-core), or the server on CPU 1 (cross-core), as ping places them.</summary>
    public (string Server, string Client) Cpusets => Placement == "cross-core" ? ("1", "0") : ("0", "0");
}

/// <summary>
/// Runs container pairs with docker compose (docker/compose.yaml and its overlays) under one compose project, which it
/// takes down when it is done, also when cancelled: a pair each, its server checked to have run under the runtime the
/// pair names. A runtime the engine does not have, or cannot start a container under, refuses its pairs with why.
/// </summary>
internal sealed partial class PairRunner(PairSettings settings, string docker) : IAsyncDisposable
{
    /// <summary>Named after this verb's pid, so that a later run can tell whether the one that made it still runs (<see cref="SweepGoneAsync"/>).</summary>
    private const string ProjectPrefix = "ipcbench-isolations-";
    private readonly string _project = ProjectPrefix + Environment.ProcessId;
    private static readonly TimeSpan Short = TimeSpan.FromSeconds(30), PairBound = TimeSpan.FromMinutes(30);
    private readonly Dictionary<string, string?> _refusals = [];
    private readonly HashSet<string> _brokerImages = [];

    /// <summary>docker-compose (Debian's 1.29) when installed, else <c>docker compose</c>.</summary>
    private static readonly string[] Compose = Executable.Find("docker-compose") is not null ? ["docker-compose"] : ["docker", "compose"];

    /// <summary>
    /// Measures <paramref name="transport"/> at <paramref name="size"/> in a pair, its run folder in <paramref name="results"/> (a new
    /// folder): the results.json its client wrote, or what a side said when it refused the case (exit 3).
    /// </summary>
    public async Task<(string? Results, string? Refusal)> RunAsync(PairStep step, string transport, string size, string results, CancellationToken ct)
    {
        if (step.BrokerImage is { } image && _brokerImages.Add(image))
        {
            string broker = image["ipcbench-broker-".Length..image.IndexOf(':', StringComparison.Ordinal)];
            await RunAsync(Info("bash", Path.Combine(docker, "build-offline.sh"), "--brokers-only", "--broker", broker), TimeSpan.FromMinutes(10), ct);
        }
        Directory.CreateDirectory(results);
        var up = Info([.. Compose, .. Files(step.Pair), "up", "--abort-on-container-exit", "--exit-code-from", $"{step.Pair.Profile}-client", $"{step.Pair.Profile}-client"]);
        foreach (var (name, value) in Variables(step, transport, size, results))
        {
            up.Environment[name] = value;
        }
        var ended = await BoundedChild.RunAsync(up, $"the {step.Pair.Name} pair", PairBound, ct);
        string serverId = await ContainerAsync(step.Pair, "server", ct);
        // Exit 3 is "not supported here": the client's (compose exits with its code), or the server's (it stopped first).
        string? refusal = ended.ExitCode == 0 ? null
            : await RefusalAsync(ended.ExitCode == 3 ? await ContainerAsync(step.Pair, "client", ct) : serverId, ct)
            ?? throw new InvalidOperationException($"the {step.Pair.Name} pair for {transport} at {size} failed (exit {ended.ExitCode}); "
                + $"compose said: {string.Join(" | ", (ended.Stdout + ended.Stderr).Trim().Split('\n').TakeLast(8).Select(l => l.Trim()))}");
        // The column is named after the runtime the server ran under, as the engine reports it, not as asked for.
        string ran = (await RunAsync(Info("docker", "inspect", "-f", "{{.HostConfig.Runtime}}", serverId), Short, ct)).Stdout.Trim();
        if (ran != step.Pair.Runtime)
        {
            throw new InvalidOperationException($"the {step.Pair.Name} pair's server ran under {ran}, not {step.Pair.Runtime}");
        }
        await RunAsync(Info([.. Compose, .. Files(step.Pair), "down", "-v", "--remove-orphans"]), TimeSpan.FromMinutes(2), ct);
        return refusal is not null ? (null, refusal)
            : (Directory.EnumerateFiles(results, "results.json", SearchOption.AllDirectories).SingleOrDefault()
                ?? throw new InvalidOperationException($"the {step.Pair.Name} pair for {transport} at {size} wrote no results.json"), null);
    }

    /// <summary>What docker/compose.yaml reads: the case, each side's CPUs, the image, the runtimes, where the client's run folder goes.</summary>
    private Dictionary<string, string?> Variables(PairStep step, string transport, string size, string results)
    {
        var (server, client) = settings.Cpusets;
        return new()
        {
            ["IPCBENCH_TRANSPORT"] = transport, ["IPCBENCH_SIZE"] = size, ["IPCBENCH_ADDRESS"] = step.Address, ["IPCBENCH_BROKER_IMAGE"] = step.BrokerImage,
            ["IPCBENCH_COUNT"] = $"{settings.Count}", ["IPCBENCH_WARMUP"] = $"{settings.Warmup}", ["IPCBENCH_PLACEMENT"] = settings.Placement,
            ["IPCBENCH_SERVER_CPUSET"] = server, ["IPCBENCH_CLIENT_CPUSET"] = client, ["IPCBENCH_IMAGE"] = settings.Image,
            ["IPCBENCH_RESULTS_DIR"] = results, ["IPCBENCH_SANDBOX_RUNTIME"] = step.Pair.Runtime, ["IPCBENCH_VM_RUNTIME"] = settings.VmRuntime,
        };
    }

    private async Task<string> ContainerAsync(Pair pair, string side, CancellationToken ct) =>
        (await RunAsync(Info([.. Compose, .. Files(pair), "ps", "-q", $"{pair.Profile}-{side}"]), Short, ct)).Stdout.Trim();

    /// <summary>What a pair's container said when it exited 3 (it cannot run this case in this image): its last line; null when it did not.</summary>
    private static async Task<string?> RefusalAsync(string container, CancellationToken ct)
    {
        if (container.Length == 0 || (await RunAsync(Info("docker", "inspect", "-f", "{{.State.ExitCode}}", container), Short, ct)).Stdout.Trim() != "3")
        {
            return null;
        }
        var logs = await RunAsync(Info("docker", "logs", container), Short, ct);
        return VerbPrefix().Replace((logs.Stdout + logs.Stderr).Trim().Split('\n')[^1], "");
    }

    [GeneratedRegex("^ipcbench (serve|ping): ")]
    private static partial Regex VerbPrefix();

    /// <summary>
    /// Why <paramref name="runtime"/> cannot run a container on this engine (null when it can): not registered, or a
    /// container under it fails to start. Asked once per runtime, on a link-local network of its own (an engine not
    /// started by docker/run.sh has a private range on its default bridge).
    /// </summary>
    public async Task<string?> RuntimeRefusalAsync(string runtime, CancellationToken ct)
    {
        if (runtime == "runc")
        {
            return null;
        }
        if (_refusals.TryGetValue(runtime, out string? known))
        {
            return known;
        }
        string registered = (await RunAsync(Info("docker", "info", "--format", "{{range $name, $_ := .Runtimes}}{{$name}} {{end}}"), Short, ct)).Stdout;
        string? why = null;
        if (!registered.Split(' ', StringSplitOptions.RemoveEmptyEntries).Contains(runtime))
        {
            why = $"no runtime {runtime} is registered with this Docker engine (see docker/compose.kata.yaml, docker/compose.sandbox.yaml)";
        }
        else
        {
            string network = $"{_project}-preflight";
            try
            {
                var made = await RunAsync(Info("docker", "network", "create", "--subnet", "169.254.75.0/24", "--label", $"com.docker.compose.project={_project}", network), Short, ct, check: false);
                var started = made.ExitCode != 0 ? made
                    : await RunAsync(Info("docker", "run", "--rm", "--runtime", runtime, "--network", network, "--entrypoint", "true", settings.Image), TimeSpan.FromMinutes(2), ct, check: false);
                if (started.ExitCode != 0)
                {
                    string said = StartError().Match(started.Stdout + started.Stderr) is { Success: true } m ? m.Value : started.LastError;
                    why = $"a container under {runtime} does not start here: {said[..Math.Min(said.Length, 240)]}";
                }
            }
            finally
            {
                await RunAsync(Info("docker", "network", "rm", network), Short, CancellationToken.None, check: false);
            }
        }
        return _refusals[runtime] = why;
    }

    [GeneratedRegex("starting container: .*|Error response from daemon: .*")]
    private static partial Regex StartError();

    /// <summary>Takes down every pair of the project, whichever profile made it; bounded, and also when the run was cancelled.</summary>
    public ValueTask DisposeAsync() => new(TakeDownAsync(docker, _project));

    /// <summary>
    /// Takes down the projects of isolations runs that are gone (killed before they could take their pairs down): only
    /// projects named as this class names its own, and only while their pid runs no isolations verb.
    /// </summary>
    public static async Task SweepGoneAsync(string docker, CancellationToken ct)
    {
        var projects = new SortedSet<string>(StringComparer.Ordinal);
        foreach (string[] list in new[] { new[] { "ps", "-a" }, ["network", "ls"], ["volume", "ls"] })
        {
            var listed = await RunAsync(Info(["docker", .. list, "--format", "{{.Label \"com.docker.compose.project\"}}"]), Short, ct, check: false);
            projects.UnionWith(listed.Stdout.Split('\n', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries));
        }
        foreach (string gone in projects.Where(p => p.StartsWith(ProjectPrefix, StringComparison.Ordinal)
            && int.TryParse(p[ProjectPrefix.Length..], out int owner) && !ProcessLiveness.Runs(owner, "isolations")))
        {
            Console.WriteLine($"== removing the pairs of {gone} (its run is gone)");
            await TakeDownAsync(docker, gone);
        }
    }

    /// <summary>
    /// compose down over every profile, then whatever still carries the project's label: a container that a stopping
    /// <c>up</c> still had in hand can outlive <c>down</c> (seen in CI).
    /// </summary>
    private static async Task TakeDownAsync(string docker, string project)
    {
        string[] profiles = ["shared-netns", "volume", "shared-ipc", "broker"];
        await RunAsync(Info([.. Compose, "-p", project, "-f", Path.Combine(docker, "compose.yaml"), .. profiles.SelectMany(p => new[] { "--profile", p }),
            "down", "-v", "--remove-orphans"]), TimeSpan.FromMinutes(2), CancellationToken.None, check: false);
        string label = $"label=com.docker.compose.project={project}";
        foreach (var (list, remove) in new[] { (new[] { "ps", "-aq" }, new[] { "rm", "-f", "-v" }), (["network", "ls", "-q"], ["network", "rm"]), (["volume", "ls", "-q"], ["volume", "rm", "-f"]) })
        {
            string[] left = (await RunAsync(Info(["docker", .. list, "--filter", label]), Short, CancellationToken.None, check: false))
                .Stdout.Split((char[])['\n', ' '], StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
            if (left.Length > 0)
            {
                await RunAsync(Info(["docker", .. remove, .. left]), Short, CancellationToken.None, check: false);
            }
        }
    }

    private string[] Files(Pair pair) =>
        ["-p", _project, "-f", Path.Combine(docker, "compose.yaml"), .. pair.Overlay is { } overlay ? new[] { "-f", Path.Combine(docker, overlay) } : [],
            "--profile", pair.Profile];

    private static ProcessStartInfo Info(params string[] command)
    {
        var info = new ProcessStartInfo(command[0]);
        foreach (string argument in command[1..])
        {
            info.ArgumentList.Add(argument);
        }
        return info;
    }

    private static async Task<ChildOutput> RunAsync(ProcessStartInfo info, TimeSpan bound, CancellationToken ct, bool check = true)
    {
        string what = string.Join(' ', [info.FileName, .. info.ArgumentList.Take(6)]);
        var ended = await BoundedChild.RunAsync(info, what, bound, ct);
        return ended.ExitCode == 0 || !check ? ended : throw new InvalidOperationException($"{what} failed (exit {ended.ExitCode}): {ended.LastError}");
    }
}
