using System.Net;
using YamlDotNet.RepresentationModel;
using static IpcBench.Tests.YamlNodes;

namespace IpcBench.Tests;

/// <summary>
/// The container and cluster files that cannot run on this machine (a Kata override, Windows containers, Kubernetes) and
/// the compose pairs that do, checked by parsing: every pair has both roles, every network is link-local, each
/// isolation names what it promises.
/// </summary>
public class DockerFilesTests
{
    private static readonly string Docker = Path.Combine(RepositoryRoot(), "docker");

    private static YamlMappingNode Load(string relativePath) =>
        (YamlMappingNode)LoadAll(relativePath).Single();

    private static List<YamlNode> LoadAll(string relativePath)
    {
        var stream = new YamlStream();
        using var reader = new StreamReader(Path.Combine(Docker, relativePath));
        stream.Load(reader);
        return stream.Documents.Select(d => d.RootNode).ToList();
    }

    private static YamlMappingNode Services(YamlMappingNode compose) => (YamlMappingNode)compose["services"];

    [Fact]
    public void Every_compose_pair_is_a_server_and_a_client_on_link_local_networks_only()
    {
        var compose = Load("compose.yaml");
        var services = Services(compose);
        var profiles = services.Children.Values.SelectMany(s => Items(Get(s, "profiles"))).Distinct().ToList();
        Assert.Equal(["shared-netns", "volume", "shared-ipc", "broker"], profiles);
        // Plain `docker compose up` starts the default pair, tcp over a bridge, and nothing else; building its image
        // from the repository's Dockerfile when it is missing.
        var unprofiled = services.Children.Where(s => !Items(Get(s.Value, "profiles")).Any()).Select(s => Text(s.Key)).ToList();
        Assert.Equal(["bridge-server", "bridge-client"], unprofiled);
        Assert.Equal("docker/Dockerfile", Text(Get(services, "bridge-server", "build", "dockerfile")));
        foreach (string profile in profiles.Prepend("bridge"))
        {
            Assert.True(services.Children.ContainsKey(new YamlScalarNode($"{profile}-server")), $"{profile} has no server");
            var client = Get(services, $"{profile}-client");
            Assert.NotNull(client);
            // ping, through the client anchor's entry point, waiting for a server that may still be starting
            Assert.Equal(["/app/ipcbench", "ping"], Items(Get(client, "entrypoint")).Take(2));
            Assert.Contains("--wait-for-server", Items(Get(client, "entrypoint")));
        }
        foreach (var network in ((YamlMappingNode)compose["networks"]).Children.Values)
        {
            foreach (var pool in (YamlSequenceNode)Get(network, "ipam", "config")!)
            {
                Assert.True(IsLinkLocal(Text(Get(pool, "subnet"))), $"subnet {Text(Get(pool, "subnet"))} is not in 169.254.0.0/16");
            }
        }
        foreach (var service in services.Children.Values)
        {
            var networks = Get(service, "networks") as YamlMappingNode;
            foreach (var address in networks?.Children.Values.Select(n => Text(Get(n, "ipv4_address"))).Where(a => a.Length > 0) ?? [])
            {
                Assert.True(IsLinkLocal(address + "/32"), $"{address} is not link-local");
            }
        }
    }

    [Fact]
    public void Each_pair_crosses_the_boundary_its_profile_names()
    {
        var services = Services(Load("compose.yaml"));
        Assert.Equal("service:shared-netns-server", Text(Get(services, "shared-netns-client", "network_mode")));
        Assert.Equal("shareable", Text(Get(services, "shared-ipc-server", "ipc")));
        Assert.Equal("service:shared-ipc-server", Text(Get(services, "shared-ipc-client", "ipc")));
        Assert.Contains("sockets:/run/ipcbench", Items(Get(services, "volume-server", "volumes")));
        Assert.Contains("sockets:/run/ipcbench", Items(Get(services, "volume-client", "volumes")));
        Assert.Equal("169.254.77.10", Text(Get(services, "bridge-server", "networks", "pair", "ipv4_address")));
        Assert.Contains("${IPCBENCH_TRANSPORT:-tcp}://169.254.77.10:5000", Items(Get(services, "bridge-client", "command")));
    }

    [Fact]
    public void The_kata_override_runs_the_bridge_server_under_a_vm_runtime()
    {
        var kata = Services(Load("compose.kata.yaml"));
        var pairs = Services(Load("compose.yaml"));
        Assert.Equal("${IPCBENCH_VM_RUNTIME:-kata}", Text(Get(kata, "bridge-server", "runtime")));
        foreach (var name in kata.Children.Keys)
        {
            Assert.True(pairs.Children.ContainsKey(name), $"the override names {name}, which compose.yaml has not");
        }
    }

    [Fact]
    public void The_sandbox_override_runs_the_bridge_and_volume_servers_under_gvisor_and_leaves_the_clients_plain()
    {
        var sandbox = Services(Load("compose.sandbox.yaml"));
        var pairs = Services(Load("compose.yaml"));
        Assert.Equal(["bridge-server", "volume-server"], sandbox.Children.Keys.Select(Text).Order());
        foreach (var (name, service) in sandbox.Children)
        {
            Assert.True(pairs.Children.ContainsKey(name), $"the override names {Text(name)}, which compose.yaml has not");
            Assert.Equal("${IPCBENCH_SANDBOX_RUNTIME:-ipcbench-runsc}", Text(Get(service, "runtime")));
        }
        // The runtime names are the ones the engine registers (docker/engine.sh) and 'ipcbench isolations' asks for.
        string engine = File.ReadAllText(Path.Combine(Docker, "engine.sh"));
        var asked = Cli.Containers.ContainerPairs.All("kata").Select(p => p.Runtime).ToHashSet();
        foreach (string runtime in new[] { "ipcbench-runsc", "ipcbench-runsc-hostnet" })
        {
            Assert.Contains($"\"{runtime}\": {{", engine);
            Assert.Contains(runtime, asked);
        }
    }

    [Theory]
    [InlineData("client-same-node.yaml", "podAffinity")]
    [InlineData("client-cross-node.yaml", "podAntiAffinity")]
    public void The_kubernetes_client_job_finds_the_server_and_is_placed_by_node(string file, string affinity)
    {
        var server = LoadAll("k8s/server.yaml").Cast<YamlMappingNode>().ToList();
        Assert.Equal(["Deployment", "Service"], server.Select(d => Text(d["kind"])));
        string app = Text(Get(server[0], "spec", "template", "metadata", "labels", "app"));
        Assert.Equal(app, Text(Get(server[1], "spec", "selector", "app")));
        Assert.Equal(app, Text(Get(server[0], "spec", "selector", "matchLabels", "app")));

        var job = Load("k8s/" + file);
        Assert.Equal("Job", Text(job["kind"]));
        var pod = Get(job, "spec", "template", "spec")!;
        Assert.Equal("Never", Text(Get(pod, "restartPolicy")));
        var term = ((YamlSequenceNode)Get(pod, "affinity", affinity, "requiredDuringSchedulingIgnoredDuringExecution")!).Children.Single();
        Assert.Equal("kubernetes.io/hostname", Text(Get(term, "topologyKey")));
        Assert.Equal(app, Text(Get(term, "labelSelector", "matchLabels", "app")));
        var ping = ((YamlSequenceNode)Get(pod, "initContainers")!).Children.Single();
        var args = Items(Get(ping, "args")).ToList();
        Assert.Equal("ping", args[0]);
        Assert.Equal($"tcp://{Text(Get(server[1], "metadata", "name"))}:5000", args[args.IndexOf("--server") + 1]);
    }

    [Fact]
    public void The_dockerfile_defaults_to_the_official_images_and_builds_offline_without_them()
    {
        string[] lines = File.ReadAllLines(Path.Combine(Docker, "Dockerfile"));
        Assert.Contains("ARG SDK_IMAGE=mcr.microsoft.com/dotnet/sdk:10.0", lines);
        Assert.Contains("ARG RUNTIME_IMAGE=mcr.microsoft.com/dotnet/runtime-deps:10.0", lines);
        // The classic builder builds every stage up to its target: the offline target must come before the SDK's.
        int prebuilt = Array.FindIndex(lines, l => l.StartsWith("FROM runtime AS prebuilt", StringComparison.Ordinal));
        int sdk = Array.FindIndex(lines, l => l.StartsWith("FROM ${SDK_IMAGE}", StringComparison.Ordinal));
        Assert.InRange(prebuilt, 0, sdk - 1);
    }

    private static bool IsLinkLocal(string cidr)
    {
        var network = IPNetwork.Parse(cidr);
        return IPNetwork.Parse("169.254.0.0/16").Contains(network.BaseAddress) && network.PrefixLength >= 16;
    }

    internal static string RepositoryRoot()
    {
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            if (File.Exists(Path.Combine(dir.FullName, "IpcBench.sln")))
            {
                return dir.FullName;
            }
        }
        throw new InvalidOperationException("IpcBench.sln not found above " + AppContext.BaseDirectory);
    }
}
