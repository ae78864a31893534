using IpcBench.Harness.Hosting;
using IpcBench.Harness.Measurement;
using IpcBench.Reporting;
using IpcBench.Reporting.Collecting;

namespace IpcBench.Tests;

/// <summary>Runs made up for tests: fixed figures for snapshots, and sample sets whose comparison has a known answer.</summary>
internal static class RunFixtures
{
    public static RunEnvironment Environment(string placement = "same-core (client cpu 0, server cpu 0)") => new()
    {
        Os = "Debian GNU/Linux 12 (bookworm)",
        Kernel = "6.1.0-test",
        CpuModel = "Test CPU @ 3.0GHz",
        LogicalCpus = 2,
        Runtime = ".NET 10.0.0",
        Clocksource = "tsc",
        CpuLimits = "cpus 0-1; quota none",
        Isolation = "container",
        IsolationEvidence = "/.dockerenv exists",
        Placement = placement,
        Options = new SortedDictionary<string, string>(StringComparer.Ordinal)
        {
            ["IPCBENCH_IO"] = "sync",
            ["IPCBENCH_SIZES"] = "1,1024,102400",
            ["IPCBENCH_TRANSPORTS"] = "tcp,mmf?wait=spin,udp,zmq-libzmq",
            ["job"] = "short",
        },
        WakeUp = new WakeUpFigures
        {
            OneCpuUs = 2.1,
            CrossCpuIdleUs = 24.8,
            CrossCpuAwakeUs = 6.2,
            CpuidleDriver = "haltpoll",
            CpuidleGovernor = "haltpoll",
            Haltpoll = "guest_halt_poll_ns=200000",
        },
    };

    /// <summary>
    /// A suite run: tcp and mmf at 1 B and 1 KB, udp at 1 B only (100 KB does not fit a datagram), grpc at 1 B and 1 KB,
    /// zmq-libzmq skipped; cold starts of tcp and grpc; tcp under load (4 clients, two open loops, one not sustained).
    /// </summary>
    public static RunResults Bench() => new()
    {
        Schema = RunResults.CurrentSchema,
        Id = "20261122-005250-bench",
        Kind = "bench",
        StartedAt = new DateTimeOffset(2026, 11, 22, 0, 52, 50, TimeSpan.Zero),
        GitCommit = "0123456789abcdef0123456789abcdef01234567",
        CommandLine = "IpcBench.Benchmarks --filter '*' --job short",
        Environment = Environment(),
        Cases =
        [
            Case("tcp", "io=sync", 1, p50: 14.8, p99: 19.25, rps: 63318.4, serverCpu: 8.1, allocated: 0),
            Case("tcp", "io=sync", 1024, p50: 15.55, p99: 21, rps: 60012.5, serverCpu: 8.4, allocated: 0),
            Case("tcp", "io=sync", 102400, p50: 1234.5, p99: 2500, rps: 790, serverCpu: 300.25, allocated: 0),
            Case("mmf", "io=sync&wait=spin", 1, p50: 0.9, p99: 1.4, rps: 910000, serverCpu: 1.1, allocated: 0.5),
            Case("mmf", "wait=spin&io=sync", 1024, p50: 1.2, p99: 2.05, rps: 700000, serverCpu: null, allocated: null),
            Case("udp", "io=sync", 1, p50: 12.2, p99: 20.1, rps: 70000, serverCpu: 7, allocated: 24, errors: 3),
            Case("grpc", "", 1, p50: 88.5, p99: 140, rps: 11000, serverCpu: 60.5, allocated: 1450),
            Case("grpc", "", 1024, p50: 92, p99: 150, rps: 10500, serverCpu: 62, allocated: 3500),
            Case("tcp", "io=sync&scenario=connect", 1, p50: 95, p99: 180, rps: 9000, serverCpu: 40, allocated: 900),
            Case("grpc", "scenario=connect", 1, p50: 2100, p99: 3900, rps: 450, serverCpu: 800, allocated: 90000),
            Case("tcp", "clients=4&io=sync&scenario=throughput", 1, p50: 30, p99: 61, rps: 131000, serverCpu: 6.5, allocated: 0) with
            {
                MegabytesPerSecond = 0.262,
                ClientRequestsPerSecond = [31000, 33000, 33500, 33500],
            },
            Case("tcp", "io=sync&rate=50000", 1, p50: 25, p99: 700, rps: 49800, serverCpu: 7, allocated: 0) with
            {
                MegabytesPerSecond = 0.1,
                OfferedRate = 50000,
                Sustained = true,
            },
            Case("tcp", "io=sync&rate=200000", 1, p50: 61000, p99: 90000, rps: 98000, serverCpu: 7, allocated: 0) with
            {
                MegabytesPerSecond = 0.196,
                OfferedRate = 200000,
                Sustained = false,
            },
        ],
        Skipped =
        [
            new SkippedCase("udp", "io=sync", 102400, "102400 B exceeds the transport's maximum message size of 65503 B"),
            new SkippedCase("zmq-libzmq", "io=sync", null, "libzmq.so.5 is not installed (apt-get install libzmq5)"),
        ],
    };

    public static CaseResult Case(string transport, string options, int size, double p50, double p99, double rps,
        double? serverCpu, double? allocated, long errors = 0, IReadOnlyList<double>? samples = null) => new(transport, options, size, "same-core")
    {
        Family = transport switch { "tcp" or "udp" => "sockets", "mmf" => "local", "grpc" => "rpc", _ => "messaging" },
        Count = 50_000,
        Errors = errors,
        LatencyUs = new LatencyFigures(R(p50 * 0.8), p50, R(p50 * 1.1), p99, R(p99 * 3), R(p99 * 40), R(p50 * 1.05)),
        RequestsPerSecond = rps,
        ClientCpuUsPerOp = R(p50 * 0.6),
        ServerCpuUsPerOp = serverCpu,
        AllocatedBytesPerOp = allocated,
        PercentilesUs = LatencyRecorder.CurvePercentiles
            .Select(p => new PercentilePoint(p, R(p50 * (p <= 50 ? 0.8 + p / 250 : 1 + (p - 50) / 50 * (p99 / p50 - 1) * (p >= 99 ? 1.5 : 1)))))
            .ToArray(),
        SamplesUs = samples ?? [R(p50 * 0.9), p50, R(p50 * 1.1)],
    };

    /// <summary>Rounded to the nanosecond, as results.json keeps figures.</summary>
    private static double R(double us) => Math.Round(us, 3);

    /// <summary>Writes <paramref name="run"/>'s results.json into a folder named after it under <paramref name="dir"/>; returns the folder.</summary>
    public static string Save(string dir, RunResults run)
    {
        string folder = Path.Combine(dir, run.Id);
        Directory.CreateDirectory(folder);
        ResultsFile.Write(folder, run);
        return folder;
    }

    /// <summary>A run of the given cases, otherwise like <see cref="Bench"/>.</summary>
    public static RunResults With(string id, params CaseResult[] cases) => Bench() with { Id = id, Cases = cases, Skipped = [] };

    /// <summary>
    /// <paramref name="count"/> latencies around <paramref name="median"/>: a seeded, skewed spread
    /// (most requests near the median, a few far above it), as round trips are.
    /// </summary>
    public static double[] Latencies(double median, int count = 2000, int seed = 1, double spread = 0.1)
    {
        var random = new Random(seed);
        var values = new double[count];
        for (int i = 0; i < count; i++)
        {
            double u = random.NextDouble();
            // Exponential tail above, uniform body below: median stays at about the given value.
            values[i] = u < 0.5 ? median * (1 - spread * (0.5 - u) * 2) : median * (1 + spread * -Math.Log(2 * (1 - u)));
        }
        return values;
    }

    /// <summary>A case whose figures come from <paramref name="samples"/>, as a real run's do.</summary>
    public static CaseResult FromSamples(string transport, int size, IReadOnlyList<double> samples)
    {
        double[] sorted = samples.Order().ToArray();
        double P(double p) => sorted[Math.Clamp((int)Math.Ceiling(p / 100 * sorted.Length) - 1, 0, sorted.Length - 1)];
        return Case(transport, "io=sync", size, p50: P(50), p99: P(99), rps: 1e6 / sorted.Average(), serverCpu: null, allocated: 0, samples: samples) with
        {
            LatencyUs = new LatencyFigures(sorted[0], P(50), P(90), P(99), P(99.9), sorted[^1], sorted.Average()),
        };
    }

    /// <summary><paramref name="c"/> with the options results.json would spell as <paramref name="options"/>.</summary>
    public static CaseResult WithOptions(this CaseResult c, string options) => c with { Key = CaseKey.Parse(c.Transport, options, c.Size, c.Placement) };

    public static CaseResult WithPlacement(this CaseResult c, string placement) => c with { Key = c.Key with { Placement = placement } };
}
