namespace IpcBench.Reporting.Writers;

/// <summary>
/// How a run is laid out in tables and charts: one row (and one chart line) per transport with its
/// options, in the order the run measured them; one column per payload size, smallest first.
/// Options that every case shares are said once, not on every row.
/// </summary>
public sealed class RunLayout
{
    private readonly Dictionary<(string Transport, string Options, int Size), CaseResult> _cases = [];
    private readonly Dictionary<(string Transport, string Options, int Size), SkippedCase> _skipped = [];

    public RunLayout(RunResults run)
    {
        CommonOptions = CaseOptions.Common(run.Cases.Select(c => c.Options));
        var rows = new List<Row>();
        foreach (var c in run.Cases)
        {
            string options = CaseOptions.Normalize(c.Options);
            if (!rows.Any(r => r.Transport == c.Transport && r.Options == options))
            {
                rows.Add(new Row(c.Transport, options, CaseOptions.Label(c.Transport, options, CommonOptions), c.Family ?? OtherFamily));
            }
            _cases.TryAdd((c.Transport, options, c.Size), c);
        }
        foreach (var s in run.Skipped.Where(s => s.Size is not null))
        {
            string options = CaseOptions.Normalize(s.Options);
            if (rows.Any(r => r.Transport == s.Transport && r.Options == options))
            {
                _skipped.TryAdd((s.Transport, options, s.Size!.Value), s);
            }
        }
        Rows = rows;
        Sizes = _cases.Keys.Select(k => k.Size).Concat(_skipped.Keys.Select(k => k.Size)).Distinct().Order().ToList();
    }

    /// <summary>Options every case has ("io=sync"), or "" when they differ or there are none.</summary>
    public string CommonOptions { get; }

    public IReadOnlyList<Row> Rows { get; }

    public IReadOnlyList<int> Sizes { get; }

    public CaseResult? Case(Row row, int size) => _cases.GetValueOrDefault((row.Transport, row.Options, size));

    public SkippedCase? Skipped(Row row, int size) => _skipped.GetValueOrDefault((row.Transport, row.Options, size));

    /// <summary>The family of a transport a run did not record one for.</summary>
    public const string OtherFamily = "other";

    /// <summary>The families the rows belong to, in <see cref="Contract.TransportFamily"/>'s order (sockets first), "other" last.</summary>
    public IEnumerable<string> Families => Rows.Select(r => r.Family).Distinct().OrderBy(FamilyOrder);

    /// <summary>Where <paramref name="family"/> comes among the others: <see cref="Contract.TransportFamily"/>'s order, unknown ones last.</summary>
    public static int FamilyOrder(string family) =>
        Enum.TryParse<Contract.TransportFamily>(family, ignoreCase: true, out var f) ? (int)f : int.MaxValue;

    /// <param name="Label">The transport and the options that set it apart from the other rows.</param>
    /// <param name="Family">The transport's family ("sockets", "rpc" ...), or <see cref="OtherFamily"/>.</param>
    public sealed record Row(string Transport, string Options, string Label, string Family);
}
