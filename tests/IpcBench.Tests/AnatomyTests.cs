using IpcBench.Contract;
using IpcBench.Harness.Measurement;
using IpcBench.Reporting;
using IpcBench.Reporting.Writers;

namespace IpcBench.Tests;

/// <summary>The anatomy of a round trip: the process counters it is read from, the stats reply that carries the server's, and its place in results.json and the reports.</summary>
public class AnatomyTests
{
    [Fact]
    public void A_thread_that_burns_CPU_and_one_that_sleeps_are_counted()
    {
        Assert.SkipUnless(OperatingSystem.IsLinux(), "the counters beyond CPU time are read from Linux's /proc and getrusage");
        var before = ProcessCounters.Read();
        long burnt = 0;
        var burner = new Thread(() =>
        {
            // A fixed amount of work, not of time: its CPU time does not shrink when other tests share the CPUs.
            long x = 1;
            for (long i = 0; i < 300_000_000; i++)
            {
                x += i ^ (x >> 3);
            }
            Volatile.Write(ref burnt, x);
        });
        var sleeper = new Thread(() =>
        {
            for (int i = 0; i < 50; i++)
            {
                Thread.Sleep(1);
            }
        });
        burner.Start();
        sleeper.Start();
        int? ran = null;
        while (burner.IsAlive || sleeper.IsAlive)
        {
            ran = Math.Max(ran ?? 0, ProcessCounters.Read(cpuFirst: true).ThreadsRanSince(before) ?? 0); // both are live threads now
            Thread.Sleep(5);
        }
        var after = ProcessCounters.Read(cpuFirst: true);
        Assert.NotEqual(0, burnt);
        Assert.InRange(after.CpuUs - before.CpuUs, 50_000, 60_000_000);
        Assert.InRange(after.VoluntarySwitches - before.VoluntarySwitches, 50, long.MaxValue); // a sleep is a voluntary switch
        Assert.True(after.InvoluntarySwitches >= before.InvoluntarySwitches && after.RunnableWaitUs >= 0);
        Assert.InRange(ran ?? 0, 2, 1000); // this thread, the burner and the sleeper at least
        var share = SideAnatomy.Between(before, after, ran, operations: 10)!;
        Assert.Equal((after.CpuUs - before.CpuUs) / 10.0, share.CpuUs, 1e-6);
        Assert.Equal(ran, share.ThreadsRan);
    }

    [Fact]
    public void The_runnable_wait_of_threads_that_ended_stays_counted()
    {
        Assert.SkipUnless(OperatingSystem.IsLinux(), "the runnable wait is read from Linux's schedstat");
        var before = ProcessCounters.Read();
        // More spinning threads than CPUs, for a tenth of a second: they wait for a CPU in turns, then end.
        using var go = new ManualResetEventSlim();
        var spinners = Enumerable.Range(0, Environment.ProcessorCount + 2).Select(_ => new Thread(() =>
        {
            go.Wait();
            var spin = System.Diagnostics.Stopwatch.StartNew();
            while (spin.ElapsedMilliseconds < 100)
            {
            }
        })).ToList();
        spinners.ForEach(thread => thread.Start());
        var alive = ProcessCounters.Read(); // all of them, waiting to go
        go.Set();
        Thread.Sleep(50);
        var spinning = ProcessCounters.Read();
        spinners.ForEach(thread => thread.Join());
        var after = ProcessCounters.Read();
        // They waited (some 100 ms here; more than 10 at the least, or this test would prove nothing).
        Assert.True(spinning.RunnableWaitUs - alive.RunnableWaitUs > 10_000 && alive.RunnableWaitUs >= before.RunnableWaitUs,
            $"{before.RunnableWaitUs}, {alive.RunnableWaitUs}, {spinning.RunnableWaitUs}");
        Assert.True(after.RunnableWaitUs >= spinning.RunnableWaitUs, $"the wait went from {spinning.RunnableWaitUs} us to {after.RunnableWaitUs} us as its threads ended");
    }

    [Fact]
    public void The_counters_read_every_thread_this_process_has()
    {
        Assert.SkipUnless(OperatingSystem.IsLinux(), "reads each thread's schedstat in /proc, which is Linux's");
        // Other tests start and end threads meanwhile, and a thread that ends while a directory is read can hide a live
        // one from that reading: a few tries for a reading that is exact.
        HashSet<int> before = [], after = [], read = [];
        ProcessCounters counters = null!;
        for (int attempt = 0; attempt < 5 && (attempt == 0 || !before.SetEquals(after) || !read.SetEquals(before)); attempt++)
        {
            before = TaskIds();
            counters = ProcessCounters.Read();
            after = TaskIds();
            read = counters.ThreadCpuNs.Select(thread => thread.Id).ToHashSet();
        }
        Assert.Subset(before.Union(after).ToHashSet(), read); // none made up
        Assert.Superset(before.Intersect(after).ToHashSet(), read); // none that lived throughout missed
        Assert.Contains(counters.ThreadCpuNs, thread => thread.CpuNs > 0);
        Assert.True(counters.RunnableWaitUs >= 0 && counters.UserUs + counters.SystemUs > 0, counters.ToString());

        static HashSet<int> TaskIds() => Directory.EnumerateDirectories("/proc/self/task").Select(task => int.Parse(Path.GetFileName(task))).ToHashSet();
    }

    [Fact]
    public void A_counter_either_reading_lacks_is_left_out_not_made_up()
    {
        (int, long)[] empty = [];
        var before = new ProcessCounters(10, 20, ProcessCounters.Unknown, 5, 100, 1000, empty);
        var after = new ProcessCounters(30, 60, 7, 9, ProcessCounters.Unknown, 3000, empty);
        var share = SideAnatomy.Between(before, after, null, operations: 2)!;
        Assert.Equal((10.0, 20.0), (share.UserUs, share.SystemUs));
        Assert.Null(share.VoluntarySwitches);
        Assert.Equal(2.0, share.InvoluntarySwitches);
        Assert.Null(share.RunnableWaitUs);
        Assert.Equal(1000.0, share.AllocatedBytes);
        Assert.Null(SideAnatomy.Between(before, after, null, operations: 0));
    }

    [Fact]
    public async Task The_stats_reply_carries_the_server_counters_and_the_threads_that_ran_since_the_last()
    {
        var handler = ServerStats.For(null);
        await using var connection = new Direct(handler);
        var first = (await ServerStats.QueryAsync(connection, lossTolerated: false, TestContext.Current.CancellationToken))!.Value;
        Assert.NotNull(first.Counters);
        Assert.Null(first.ThreadsRan); // no stats request before it to count from
        for (int i = 0; i < 100; i++)
        {
            await connection.RequestAsync(new byte[16], new byte[16], TestContext.Current.CancellationToken);
        }
        var second = (await ServerStats.QueryAsync(connection, lossTolerated: false, TestContext.Current.CancellationToken))!.Value;
        var share = second.ShareSince(first)!;
        Assert.Equal(100, second.Requests - first.Requests);
        Assert.NotNull(share.Anatomy);
        if (OperatingSystem.IsLinux())
        {
            Assert.InRange(second.ThreadsRan ?? 0, 1, 1000); // this one, which served them
            Assert.NotNull(share.Anatomy.VoluntarySwitches);
        }
    }

    [Fact]
    public async Task The_stats_reply_says_whether_the_server_JIT_is_done_and_a_reply_that_leaves_it_zero_is_not_waited_for()
    {
        await using (var server = new Direct(ServerStats.For(null)))
        {
            var told = (await ServerStats.QueryAsync(server, false, TestContext.Current.CancellationToken))!.Value;
            Assert.NotNull(told.JitSettled); // this process's monitor judges it, settled or not
        }
        // A full reply with the field at 88 as given: 0 (a WCF host's, an older server's), 1 done, 2 still at work.
        Direct Server(long jit) => new(new RequestHandler((_, reply) =>
        {
            reply[..ServerStats.ReplySize].Clear();
            "\0ipcbench-stats\0"u8.CopyTo(reply);
            BitConverter.TryWriteBytes(reply[16..], 1000L);
            BitConverter.TryWriteBytes(reply[88..], jit);
            return ServerStats.ReplySize;
        }, ServerStats.ReplySize));
        foreach (var (jit, settled, waitedFor) in new[] { (0L, (bool?)null, false), (1L, true, false), (2L, false, true), (7L, null, false) })
        {
            await using var server = Server(jit);
            Assert.Equal(settled, (await ServerStats.QueryAsync(server, false, TestContext.Current.CancellationToken))!.Value.JitSettled);
            Assert.Equal(!waitedFor, await ServerStats.JitSettledAsync(server, false, TestContext.Current.CancellationToken));
        }
        // A lost reply (udp's) is asked again the next round, not taken for done; where nothing may be lost it fails.
        await using var lost = new Direct(new RequestHandler((_, _) => throw new TransportTimeoutException("no reply within 1 s"), ServerStats.ReplySize));
        Assert.False(await ServerStats.JitSettledAsync(lost, lossTolerated: true, TestContext.Current.CancellationToken));
        await Assert.ThrowsAsync<TransportTimeoutException>(() => ServerStats.JitSettledAsync(lost, lossTolerated: false, TestContext.Current.CancellationToken).AsTask());
    }

    [Fact]
    public async Task A_server_that_tells_its_CPU_alone_still_gives_its_CPU()
    {
        // The short reply: the marker, CPU time and requests, 32 bytes (an older WCF host's).
        byte[] Reply(long cpu, long requests)
        {
            var reply = new byte[ServerStats.MessageSize];
            "\0ipcbench-stats\0"u8.CopyTo(reply);
            BitConverter.TryWriteBytes(reply.AsSpan(16), cpu);
            BitConverter.TryWriteBytes(reply.AsSpan(24), requests);
            return reply;
        }
        await using var before = new Direct(new RequestHandler((_, reply) => { Reply(1000, 0).CopyTo(reply); return ServerStats.MessageSize; }));
        await using var after = new Direct(new RequestHandler((_, reply) => { Reply(3000, 100).CopyTo(reply); return ServerStats.MessageSize; }));
        var first = (await ServerStats.QueryAsync(before, false, TestContext.Current.CancellationToken))!.Value;
        var second = (await ServerStats.QueryAsync(after, false, TestContext.Current.CancellationToken))!.Value;
        var share = second.ShareSince(first)!;
        Assert.Equal(20.0, share.CpuUsPerOp);
        Assert.Null(share.Anatomy);
    }

    [Fact]
    public void A_run_without_anatomy_is_written_as_before_and_one_with_it_reads_back()
    {
        string old = ResultsFile.Serialize(RunFixtures.Bench());
        Assert.DoesNotContain("anatomy", old); // a run from before, merged or rewritten, is byte for byte what it was
        var side = new SideAnatomy(3.5, 10.25, 0.9, 0.1, 12.5, 4, 24.5);
        var run = RunFixtures.Bench();
        run = run with { Cases = [run.Cases[0] with { Anatomy = new Anatomy(side, side with { UserUs = 2 }) }, .. run.Cases.Skip(1)] };
        string json = ResultsFile.Serialize(run);
        Assert.Equal(json, ResultsFile.Serialize(ResultsFile.Parse(json)));
        Assert.Contains("\"runnable_wait_us\": 12.5", json);
        Assert.DoesNotContain("\"cpu_us\"", json); // derived, not stored
        Assert.Contains("Where a round trip's time goes", SummaryMarkdown.Render(run));
        Assert.DoesNotContain("Where a round trip's time goes", SummaryMarkdown.Render(RunFixtures.Bench()));
    }

    [Fact]
    public void A_negative_or_impossible_anatomy_figure_is_refused_by_name()
    {
        var run = RunFixtures.Bench();
        var bad = new SideAnatomy(3.5, 10.25, -1, 0.1, 12.5, 4, 24.5);
        string json = ResultsFile.Serialize(run with { Cases = [run.Cases[0] with { Anatomy = new Anatomy(null, bad) }, .. run.Cases.Skip(1)] });
        var e = Assert.Throws<ResultsFormatException>(() => ResultsFile.Parse(json, "x/results.json"));
        Assert.Contains("anatomy.server.voluntary_switches", e.Message);
    }

    /// <summary>A connection that calls the handler in this process: the server's side of the stats request, without a transport.</summary>
    private sealed class Direct(RequestHandler handler) : IConnection
    {
        public ValueTask<int> RequestAsync(ReadOnlyMemory<byte> request, Memory<byte> reply, CancellationToken ct = default) =>
            ValueTask.FromResult(handler.Handle(request.Span, reply.Span));

        public ValueTask DisposeAsync() => ValueTask.CompletedTask;
    }
}
