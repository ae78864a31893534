using IpcBench.Cli.Commands;
using IpcBench.Cli.Parsing;
using IpcBench.Contract.Options;
using IpcBench.Reporting;
using IpcBench.Reporting.Writers;

namespace IpcBench.Cli.Containers;

/// <summary>
/// One run of <c>ipcbench isolations</c>: the isolations beside the client as a plan each (every transport and size in
/// it), then the container pairs a case at a time; each measured run kept for the merge, each refusal as a skipped case.
/// </summary>
internal sealed class IsolationsRun(string[] transports, string[] sizes, string[] wanted, PairSettings settings)
{
    private readonly List<SkippedCase> _skipped = [];

    /// <summary>The cases a pair could not carry, by transport and isolation (and size, when one side refused one size).</summary>
    public IReadOnlyList<SkippedCase> Skipped => _skipped;

    /// <summary>The pairs each transport crosses, among those wanted, in the isolation table's order.</summary>
    private IEnumerable<(string Transport, PairStep Step)> PairSteps()
    {
        var pairs = ContainerPairs.All(settings.VmRuntime);
        return transports.SelectMany(name => ContainerPairs.For(TransportListing.Of(TransportArgument.Resolve(name), null), pairs)
            .Where(step => wanted.Contains(step.Pair.Isolation)).Select(step => (name, step)));
    }

    /// <summary>For <c>--dry-run</c>: each transport's pairs with the address both ends are told, or why it cannot cross.</summary>
    public void PrintPairs()
    {
        foreach (var (transport, step) in PairSteps())
        {
            Console.WriteLine(step.Refusal is { } why ? $"{transport} in {step.Pair.Isolation}: not supported: {why}"
                : $"{transport} in {step.Pair.Isolation}: {(string.IsNullOrEmpty(step.Address) ? "the profile's address" : step.Address)}"
                    + $", server under {step.Pair.Runtime}{(step.BrokerImage is { } broker ? $", broker {broker}" : "")}");
        }
    }

    /// <summary>Every case, host isolations first; the runs to merge, the pairs' labelled with their isolation.</summary>
    public async Task<IReadOnlyList<MergeSource>> MeasureAsync(string work, string docker, CancellationToken ct)
    {
        Console.WriteLine($"== measuring: {string.Join(' ', transports)} at {string.Join(',', sizes)}, {settings.Count} requests each, placement {settings.Placement}");
        var sources = new List<MergeSource>();
        foreach (string isolation in ContainerPairs.Host.Where(wanted.Contains))
        {
            Console.WriteLine($"== isolation {isolation}");
            var cases = transports.SelectMany(t => sizes.Select(size => (IReadOnlyList<string>)["--transport", t, "--size", size,
                "--count", $"{settings.Count}", "--warmup", $"{settings.Warmup}", "--placement", settings.Placement, "--isolation", isolation])).ToList();
            var measured = await (await PlanRun.PrepareAsync(cases, ct)).RunAsync(1, ["isolations", "--isolation", isolation], ct);
            Console.Write(measured.Table());
            sources.Add(new MergeSource(measured.Rounds[0], null));
        }
        var steps = PairSteps().ToList();
        if (steps.Count > 0)
        {
            await PairRunner.SweepGoneAsync(docker, ct);
            await MeasurePairsAsync(steps, work, docker, sources, ct);
        }
        return [.. sources.OrderBy(s => s.Isolation is null ? -1 : Array.IndexOf(ContainerPairs.Isolations, s.Isolation))];
    }

    /// <summary>Each transport in each pair it crosses, a size at a time, under one compose project taken down at the end.</summary>
    private async Task MeasurePairsAsync(List<(string Transport, PairStep Step)> steps, string work, string docker, List<MergeSource> sources, CancellationToken ct)
    {
        await using var pairs = new PairRunner(settings, docker);
        foreach (var (transport, step) in steps)
        {
            if ((step.Refusal ?? await pairs.RuntimeRefusalAsync(step.Pair.Runtime, ct)) is { } refused)
            {
                Skip(transport, step, null, refused);
                continue;
            }
            foreach (string size in sizes)
            {
                int bytes = Quantities.ParseSize(size, PingOptions.LengthPrefixLimit)!.Value;
                var (results, refusal) = await pairs.RunAsync(step, transport, size, Path.Combine(work, step.Pair.Isolation, $"{transport}-{bytes}"), ct);
                if (refusal is not null) // a side said it cannot run this case in the image: at this size
                {
                    Skip(transport, step, bytes, refusal);
                    continue;
                }
                var run = ResultsFile.Read(results!);
                var only = run.Cases.Single();
                Console.WriteLine($"   {transport} at {Units.Size(bytes)} in {step.Pair.Isolation}: {Units.Latency(only.LatencyUs)}");
                sources.Add(new MergeSource(run, step.Pair.Isolation));
            }
        }
    }

    /// <summary>A case the pair cannot carry: at every size (<paramref name="bytes"/> null), or at one.</summary>
    private void Skip(string transport, PairStep step, int? bytes, string reason)
    {
        Console.WriteLine($"   {transport}{(bytes is null ? "" : $" at {Units.Size(bytes.Value)}")} in {step.Pair.Isolation}: not supported: {reason}");
        _skipped.Add(new SkippedCase(transport, $"isolation={step.Pair.Isolation}", bytes, reason));
    }
}
