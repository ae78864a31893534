using System.Globalization;

namespace IpcBench.Reporting;

/// <summary>
/// What a results file may hold beyond its shape: every number finite and within what a run can measure, every list
/// and text of a size a report can draw, no nulls where a writer expects a value. Anything else is refused with the
/// field's name, so that a damaged or hostile file never reaches a chart (a p99 of 1.5e308 once made the log axis
/// loop until memory ran out).
/// </summary>
internal static class ResultsBounds
{
    /// <summary>An hour: no request waits that long (every wait has a timeout of seconds).</summary>
    public const double MaxMicroseconds = 3.6e9;

    /// <summary>Far above any machine's round trips, bytes or requests per second.</summary>
    public const double MaxRate = 1e12;

    public const long MaxCount = 1_000_000_000_000;

    /// <summary>The finest figure a writer records: every one is rounded to at most three decimals (<see cref="Figures"/>).</summary>
    public const double MinPositive = 0.001;

    public const int MaxSize = 1 << 30;

    public const int MaxList = 100_000;

    public const int MaxName = 1_000;

    public const int MaxText = 100_000;

    /// <summary>The longest encoded histogram read: a compressed histogram of every bucket of an hour's range is far less.</summary>
    public const int MaxHistogram = 1 << 20;

    public static void Check(RunResults run, string where)
    {
        var field = new Field(where);
        field.Text("id", run.Id, MaxName, name: true);
        field.Text("kind", run.Kind, MaxName, name: true);
        field.Text("git_commit", run.GitCommit, MaxName, name: true);
        field.Text("command_line", run.CommandLine, MaxText);
        CheckEnvironment(field, run.Environment);
        field.List("cases", run.Cases, MaxList);
        for (int i = 0; i < run.Cases.Count; i++)
        {
            CheckCase(field, $"cases[{i}].", run.Cases[i]);
        }
        field.List("skipped", run.Skipped, MaxList);
        for (int i = 0; i < run.Skipped.Count; i++)
        {
            var s = run.Skipped[i];
            field.Text($"skipped[{i}].transport", s.Transport, MaxName, name: true);
            field.Text($"skipped[{i}].options", s.Options, MaxName, name: true, blank: true);
            field.Number($"skipped[{i}].size", s.Size, MaxSize);
            field.Text($"skipped[{i}].reason", s.Reason, MaxText);
        }
    }

    private static void CheckEnvironment(Field field, RunEnvironment env)
    {
        const string e = "environment.";
        foreach (var (name, value) in new[] { ("os", env.Os), ("kernel", env.Kernel), ("cpu_model", env.CpuModel), ("runtime", env.Runtime),
                     ("clocksource", env.Clocksource), ("cpu_limits", env.CpuLimits), ("isolation", env.Isolation),
                     ("isolation_evidence", env.IsolationEvidence), ("placement", env.Placement) })
        {
            field.Text(e + name, value, MaxText);
        }
        field.Number(e + "logical_cpus", env.LogicalCpus, 1 << 16);
        field.List(e + "options", env.Options, MaxList);
        foreach (var (name, value) in env.Options)
        {
            field.Text($"{e}options key", name, MaxName, name: true);
            field.Present($"{e}options[\"{name}\"]", value);
            field.Text($"{e}options[\"{name}\"]", value, MaxText);
        }
        if (env.WakeUp is { } w)
        {
            field.Number(e + "wake_up.one_cpu_us", w.OneCpuUs, MaxMicroseconds);
            field.Number(e + "wake_up.cross_cpu_idle_us", w.CrossCpuIdleUs, MaxMicroseconds);
            field.Number(e + "wake_up.cross_cpu_awake_us", w.CrossCpuAwakeUs, MaxMicroseconds);
            field.Text(e + "wake_up.cpuidle_driver", w.CpuidleDriver, MaxName);
            field.Text(e + "wake_up.cpuidle_governor", w.CpuidleGovernor, MaxName);
            field.Text(e + "wake_up.haltpoll", w.Haltpoll, MaxText);
        }
    }

    private static void CheckCase(Field field, string c, CaseResult r)
    {
        field.Text(c + "transport", r.Transport, MaxName, name: true);
        field.Text(c + "family", r.Family, MaxName, name: true);
        field.Text(c + "options", r.Options, MaxName, name: true, blank: true);
        field.Text(c + "placement", r.Placement, MaxName, name: true);
        field.Number(c + "size", r.Size, MaxSize);
        field.Number(c + "count", r.Count, MaxCount);
        field.Number(c + "errors", r.Errors, MaxCount);
        var l = r.LatencyUs;
        foreach (var (name, value) in new[] { ("min", l.Min), ("p50", l.P50), ("p90", l.P90), ("p99", l.P99), ("p999", l.P999), ("max", l.Max), ("mean", l.Mean) })
        {
            field.Number($"{c}latency_us.{name}", value, MaxMicroseconds);
        }
        field.Number(c + "requests_per_second", r.RequestsPerSecond, MaxRate);
        field.Number(c + "megabytes_per_second", r.MegabytesPerSecond, MaxRate);
        field.Numbers(c + "client_requests_per_second", r.ClientRequestsPerSecond, MaxRate);
        field.Number(c + "offered_rate", r.OfferedRate, MaxRate);
        field.Number(c + "client_cpu_us_per_op", r.ClientCpuUsPerOp, MaxMicroseconds);
        field.Number(c + "server_cpu_us_per_op", r.ServerCpuUsPerOp, MaxMicroseconds);
        field.Number(c + "allocated_bytes_per_op", r.AllocatedBytesPerOp, MaxRate);
        foreach (var (side, anatomy) in new[] { ("client", r.Anatomy?.Client), ("server", r.Anatomy?.Server) })
        {
            CheckAnatomy(field, $"{c}anatomy.{side}.", anatomy);
        }
        field.List(c + "percentiles_us", r.PercentilesUs, MaxList);
        for (int i = 0; i < r.PercentilesUs.Count; i++)
        {
            field.Number($"{c}percentiles_us[{i}].p", r.PercentilesUs[i].P, 100);
            field.Number($"{c}percentiles_us[{i}].us", r.PercentilesUs[i].Us, MaxMicroseconds);
        }
        field.Numbers(c + "samples_us", r.SamplesUs, MaxMicroseconds);
        field.Base64(c + "latency_histogram", r.LatencyHistogram, MaxHistogram);
        field.Number(c + "warm_up.asked_ms", r.WarmUp?.AskedMs, MaxMicroseconds);
        field.Number(c + "warm_up.jit_wait_ms", r.WarmUp?.JitWaitMs, MaxMicroseconds);
    }

    private static void CheckAnatomy(Field field, string a, SideAnatomy? side)
    {
        if (side is null)
        {
            return;
        }
        field.Number(a + "user_us", side.UserUs, MaxMicroseconds);
        field.Number(a + "system_us", side.SystemUs, MaxMicroseconds);
        field.Number(a + "voluntary_switches", side.VoluntarySwitches, MaxCount);
        field.Number(a + "involuntary_switches", side.InvoluntarySwitches, MaxCount);
        field.Number(a + "runnable_wait_us", side.RunnableWaitUs, MaxMicroseconds);
        field.Number(a + "threads_ran", side.ThreadsRan, MaxCount);
        field.Number(a + "allocated_bytes", side.AllocatedBytes, MaxRate);
    }

    /// <summary>Checks one field at a time and names it, after the file, in the one line it throws.</summary>
    private sealed class Field(string where)
    {
        public void Present(string name, object? value)
        {
            if (value is null)
            {
                throw Refuse(name, "is null");
            }
        }

        /// <summary>0, or from <see cref="MinPositive"/> to <paramref name="max"/>: never NaN, an infinity or a denormal, which no log axis can hold.</summary>
        public void Number(string name, double? value, double max)
        {
            if (value is double v && !(v == 0 || v >= MinPositive && v <= max)) // false for NaN too
            {
                throw Refuse(name, $"is {v.ToString("R", CultureInfo.InvariantCulture)}, not 0 nor a number from "
                    + $"{MinPositive.ToString(CultureInfo.InvariantCulture)} to {max.ToString(CultureInfo.InvariantCulture)}");
            }
        }

        public void Numbers(string name, IReadOnlyList<double>? values, double max)
        {
            List(name, values, MaxList);
            for (int i = 0; values is not null && i < values.Count; i++)
            {
                Number($"{name}[{i}]", values[i], max);
            }
        }

        public void List<T>(string name, IReadOnlyCollection<T>? list, int max)
        {
            if (list is null)
            {
                return;
            }
            if (list.Count > max)
            {
                throw Refuse(name, $"holds {list.Count} entries, more than {max}");
            }
            if (list.Any(entry => entry is null))
            {
                throw Refuse(name, "holds a null");
            }
        }

        /// <param name="name">A name (a transport, an option): not blank, no control characters at all.</param>
        /// <param name="blank">Empty is allowed (a case without options).</param>
        public void Text(string field, string? value, int max, bool name = false, bool blank = false)
        {
            if (value is null)
            {
                return;
            }
            if (value.Length > max)
            {
                throw Refuse(field, $"is {value.Length} characters long, more than {max}");
            }
            if (name && !blank && string.IsNullOrWhiteSpace(value))
            {
                throw Refuse(field, "is blank");
            }
            if (value.Any(ch => char.IsControl(ch) && (name || ch is not ('\n' or '\r' or '\t'))))
            {
                throw Refuse(field, "holds a control character");
            }
        }

        /// <summary>Base64 text no longer than <paramref name="max"/>: what goes into a line of latency.hlog, and cannot break it.</summary>
        public void Base64(string field, string? value, int max)
        {
            Text(field, value, max, name: true);
            if (value is not null && (value.Length % 4 != 0 || !value.All(ch => char.IsAsciiLetterOrDigit(ch) || ch is '+' or '/' or '=')))
            {
                throw Refuse(field, "is not base64");
            }
        }

        private ResultsFormatException Refuse(string name, string why) => new($"{where}: {name} {why}");
    }
}
