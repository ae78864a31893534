using IpcBench.Reporting.Collecting;

namespace IpcBench.Reporting.Comparison;

/// <summary>A setting two runs differ in, with each run's value: "placement", "same-core", "none".</summary>
public sealed record Difference(string Key, string Baseline, string Current)
{
    public override string ToString() => $"{Key} differs (baseline {Baseline}, current {Current})";
}

/// <summary>
/// Whether two runs' figures may be set side by side: the same placement, isolation, machine (CPU model, logical CPUs) and
/// runtime, and no option that every case of a transport ran with in one run and none did in the other (io=sync against
/// io=async). A comparison across any of these reports the difference as a change, and a CI gate that fires on a
/// placement change teaches people to ignore it. (The results schema is checked when a file is read.)
/// </summary>
public static class Comparability
{
    public const string Placement = "placement";
    public const string Isolation = "isolation";
    public const string Machine = "machine";
    public const string Runtime = "runtime";

    /// <summary>Every key <see cref="Differences"/> may name besides case options.</summary>
    public static readonly IReadOnlyList<string> RunKeys = [Placement, Isolation, Machine, Runtime];

    /// <summary>
    /// Keys no --allow-different allows: a round trip across CPUs pays wake-ups of the other CPU that one on one CPU does
    /// not, whose cost is the machine's (env.md's wake-ups), so a case at one placement is never a case at another.
    /// </summary>
    public static readonly IReadOnlyList<string> NeverAllowed = [Placement];

    public static IReadOnlyList<Difference> Differences(RunResults baseline, RunResults current)
    {
        var (b, c) = (baseline.Environment, current.Environment);
        var found = new List<Difference>();
        void Check(string key, string before, string after)
        {
            if (before != after)
            {
                found.Add(new Difference(key, before, after));
            }
        }
        Check(Placement, PlacementName(b.Placement), PlacementName(c.Placement));
        Check(Isolation, b.Isolation, c.Isolation);
        Check(Machine, MachineName(b), MachineName(c));
        Check(Runtime, b.Runtime, c.Runtime);
        found.AddRange(OptionDifferences(baseline, current));
        return found;
    }

    /// <summary>
    /// For each transport in both runs, each option whose values in one run share none with the other's (a missing option
    /// counts as its own value, the default): io=sync in every baseline case of tcp and io=async in every current one.
    /// </summary>
    private static IEnumerable<Difference> OptionDifferences(RunResults baseline, RunResults current)
    {
        var seen = new HashSet<string>();
        foreach (string transport in baseline.Cases.Select(c => c.Transport).Intersect(current.Cases.Select(c => c.Transport)))
        {
            var before = Options(baseline, transport);
            var after = Options(current, transport);
            foreach (string key in before.SelectMany(o => o.Keys).Union(after.SelectMany(o => o.Keys)).Order(StringComparer.Ordinal))
            {
                var b = before.Select(o => o.GetValueOrDefault(key, "")).ToHashSet();
                var a = after.Select(o => o.GetValueOrDefault(key, "")).ToHashSet();
                if (!b.Overlaps(a) && seen.Add(key))
                {
                    yield return new Difference(key, Values(b), Values(a));
                }
            }
        }
    }

    private static List<Dictionary<string, string>> Options(RunResults run, string transport) =>
        run.Cases.Where(c => c.Transport == transport).Select(c => CaseOptions.Parse(c.Options).ToDictionary()).ToList();

    private static string Values(IEnumerable<string> values) =>
        string.Join("/", values.Select(v => v.Length == 0 ? "(default)" : v).Order(StringComparer.Ordinal));

    /// <summary>"same-core (client cpu 0, server cpu 0)" and "same-core (client cpu 1, server cpu 1)" are the same placement.</summary>
    private static string PlacementName(string described) => described.Split(' ', 2)[0];

    private static string MachineName(RunEnvironment env) => $"{env.CpuModel ?? "unknown CPU"} x{env.LogicalCpus}";
}
