using IpcBench.Reporting.Collecting;

namespace IpcBench.Reporting.History;

/// <summary>
/// A gate (benchmarks/ab.sh --keep) as the history branch keeps it, which benchmarks/keep-gate.sh commits: every
/// round's results.json under A/ and B/ without its per-request samples (four fifths of a launch's file; compare needs
/// them only for a run of one launch, the history never), the gate's verdicts.json and compare.md; its logs and reports
/// are left out. The gate is read as data from elsewhere: a link anywhere in it, a damaged file, or no B/ or
/// verdicts.json refuses it whole, before anything is written.
/// </summary>
public static class KeptGate
{
    public const string CompareFile = "compare.md";

    /// <summary>The largest compare.md kept: far above a gate's over every transport and size.</summary>
    private const int MaxCompareBytes = 4 << 20;

    private static readonly string[] Sides = ["A", "B"];

    /// <summary>Writes what the history keeps of <paramref name="gate"/> into <paramref name="into"/>, a new or empty folder.</summary>
    /// <exception cref="ResultsFormatException">Not a kept gate, a link in it, or a damaged file.</exception>
    /// <exception cref="ArgumentException"><paramref name="into"/> holds something.</exception>
    public static void Write(string gate, string into)
    {
        var kept = Read(gate);
        if (File.Exists(into) || (Directory.Exists(into) && Directory.EnumerateFileSystemEntries(into).Any()))
        {
            throw new ArgumentException($"{into} is not empty: name a new or empty folder");
        }
        foreach (var (relative, text) in kept)
        {
            string path = Path.Combine(into, relative);
            Directory.CreateDirectory(Path.GetDirectoryName(path)!);
            RegularFile.Replace(path, text);
        }
    }

    private static List<(string Relative, string Text)> Read(string gate)
    {
        string verdicts = Path.Combine(gate, GateVerdicts.FileName), compare = Path.Combine(gate, CompareFile);
        if (!Directory.Exists(Path.Combine(gate, "B")) || !File.Exists(verdicts))
        {
            throw new ResultsFormatException($"{gate} is not a kept gate: it has no B/ or no {GateVerdicts.FileName}");
        }
        var files = Files(gate, gate);
        var kept = files.Where(IsRoundResults(gate))
            .Select(f => (Path.GetRelativePath(gate, f), ResultsFile.Serialize(WithoutSamples(ResultsFile.Read(f)))))
            .ToList();
        if (kept.Count == 0)
        {
            throw new ResultsFormatException($"{gate} holds no results.json under A/ or B/");
        }
        string verdictsText = RegularFile.ReadResultsText(verdicts, GateVerdicts.MaxBytes);
        GateVerdicts.Parse(verdictsText, verdicts);
        kept.Add((GateVerdicts.FileName, verdictsText));
        if (files.Contains(compare))
        {
            kept.Add((CompareFile, RegularFile.ReadResultsText(compare, MaxCompareBytes)));
        }
        return kept;
    }

    private static Func<string, bool> IsRoundResults(string gate) => file =>
        Path.GetFileName(file) == ResultsFile.FileName && Sides.Contains(Path.GetRelativePath(gate, file).Split(Path.DirectorySeparatorChar)[0]);

    private static CaseResult WithoutSamples(CaseResult c) => c with { SamplesUs = [] };

    private static RunResults WithoutSamples(RunResults run) => run with { Cases = [.. run.Cases.Select(WithoutSamples)] };

    /// <summary>Every file under <paramref name="folder"/>; a link anywhere refuses the gate (nothing is read through one).</summary>
    private static List<string> Files(string gate, string folder)
    {
        var files = new List<string>();
        foreach (var entry in new DirectoryInfo(folder).EnumerateFileSystemInfos())
        {
            if (entry.LinkTarget is not null)
            {
                throw new ResultsFormatException($"{gate} holds a link ({entry.FullName}): nothing kept");
            }
            if (entry is DirectoryInfo directory)
            {
                files.AddRange(Files(gate, Path.Combine(folder, directory.Name)));
            }
            else
            {
                files.Add(Path.Combine(folder, entry.Name));
            }
        }
        return files;
    }
}
