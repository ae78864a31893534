using System.Diagnostics;
using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Harness.Measurement;
using IpcBench.Kit.Processes;
using IpcBench.Transports;

namespace IpcBench.Conformance;

/// <summary>
/// One suite, run over every registered transport that runs here, each server in its own
/// 'ipcbench serve' process: what every transport must do, whatever it is.
/// </summary>
public class ConformanceTests
{
    private static readonly int[] Sizes = [0, 1, 1024, 64 * 1024, 100 * 1024];

    [Theory]
    [MemberData(nameof(TransportCases.AllVariants), MemberType = typeof(TransportCases))]
    public async Task Echoes_every_size_it_supports_byte_for_byte(string transport, string variant)
    {
        await using var server = await TestServer.StartAsync(transport, variant);
        await using var connection = await server.ConnectAsync();
        var caps = server.Transport.Capabilities;
        foreach (int size in Sizes.Where(s => caps.RejectSize(s) is null))
        {
            var exchange = new Exchange(connection, size); // checks length and content of every reply
            for (int i = 0; i < 20; i++)
            {
                Assert.True(await exchange.SendAsync(tolerateLoss: false, TestContext.Current.CancellationToken) >= 0);
            }
        }
        Assert.Contains(Sizes, s => caps.RejectSize(s) is null && s >= 1024);
    }

    [Theory]
    [MemberData(nameof(TransportCases.All), MemberType = typeof(TransportCases))]
    public async Task Refuses_a_payload_over_its_maximum_without_breaking(string transport)
    {
        await using var server = await TestServer.StartAsync(transport);
        int max = server.Transport.Capabilities.MaxMessageSize;
        Assert.NotNull(server.Transport.Capabilities.RejectSize(max + 1));
        await using (var connection = await server.ConnectAsync())
        {
            var e = await Assert.ThrowsAsync<FrameTooLargeException>(async () =>
                await connection.RequestAsync(new byte[max + 1], new byte[max + 1], TestContext.Current.CancellationToken));
            Assert.Equal(max, e.Limit);
        }

        await using var again = await server.ConnectOnceFreeAsync(); // the server is unharmed (wcf's host takes the next once the last has ended)
        Assert.True(await new Exchange(again, 16).SendAsync(false, TestContext.Current.CancellationToken) >= 0);
    }

    [Theory]
    [MemberData(nameof(TransportCases.All), MemberType = typeof(TransportCases))]
    public async Task Serves_several_connections_one_after_another_then_stops_cleanly_when_told(string transport)
    {
        var server = await TestServer.StartAsync(transport);
        try
        {
            for (int c = 0; c < 5; c++)
            {
                await using var connection = await server.ConnectOnceFreeAsync(); // wcf's host takes the next only once the last has ended
                var exchange = new Exchange(connection, 100 + c);
                for (int i = 0; i < 10; i++)
                {
                    Assert.True(await exchange.SendAsync(false, TestContext.Current.CancellationToken) >= 0);
                }
            }
        }
        finally
        {
            await server.DisposeAsync(); // closes its stdin: told to stop
        }
        Assert.True(server.Process.ExitCode == 0, $"exit code {server.Process.ExitCode}; the server's last stderr lines: {server.Process.RecentErrors}");
    }

    [Theory]
    [MemberData(nameof(TransportCases.ConcurrentVariants), MemberType = typeof(TransportCases))]
    public async Task Serves_several_clients_at_once_each_reply_to_its_sender(string transport, string variant)
    {
        // 300 requests a client, or as many as 5 s allow past the first 50: tcp-nagle's requests wait out delayed ACKs
        // (some 80 ms each), so 300 of them took 27 s a variant.
        const int clients = 4, requests = 300, requestsAtLeast = 50;
        var enough = TimeSpan.FromSeconds(5);
        await using var server = await TestServer.StartAsync(transport, variant);
        var connections = new List<IConnection>();
        try
        {
            for (int c = 0; c < clients; c++)
            {
                connections.Add(await server.ConnectAsync());
            }
            using var start = new Barrier(clients);
            // Each client on a thread of its own, all sending at once; the sizes differ, so a reply that reaches the
            // wrong client fails its length check, and a stale one its content check.
            var threads = connections.Select((connection, c) => Task.Factory.StartNew(() =>
            {
                var exchange = new Exchange(connection, 100 + c);
                Assert.True(start.SignalAndWait(TimeSpan.FromSeconds(30)));
                var sending = System.Diagnostics.Stopwatch.StartNew();
                for (int i = 0; i < requests && (i < requestsAtLeast || sending.Elapsed < enough); i++)
                {
                    Assert.True(exchange.SendAsync(false, TestContext.Current.CancellationToken).AsTask().GetAwaiter().GetResult() >= 0);
                }
            }, TaskCreationOptions.LongRunning)).ToArray();
            await Task.WhenAll(threads).WaitAsync(TimeSpan.FromMinutes(2), TestContext.Current.CancellationToken);
        }
        finally
        {
            foreach (var connection in connections)
            {
                await connection.DisposeAsync();
            }
        }
    }

    [Theory]
    [MemberData(nameof(TransportCases.Handled), MemberType = typeof(TransportCases))]
    public async Task Replies_with_the_size_its_server_was_started_with(string transport)
    {
        foreach (var (request, reply) in new[] { (16, 4096), (4096, 16), (1, 100) })
        {
            await using var server = await TestServer.StartAsync(transport, replySize: reply);
            await using var connection = await server.ConnectAsync();
            var exchange = new Exchange(connection, request, replySize: reply); // checks the reply's length, number and pattern
            for (int i = 0; i < 20; i++)
            {
                Assert.True(await exchange.SendAsync(false, TestContext.Current.CancellationToken) >= 0);
            }
            var echo = new Exchange(connection, request); // an echo client of this server is told plainly
            var e = await Assert.ThrowsAsync<ReplyMismatchException>(async () => await echo.SendAsync(false, TestContext.Current.CancellationToken));
            Assert.Contains($"reply has {reply} B, expected {request} B", e.Message);
        }
    }

    [Theory]
    [MemberData(nameof(TransportCases.Pipelined), MemberType = typeof(TransportCases))]
    public async Task Carries_several_requests_in_flight_on_one_connection_each_reply_to_its_request(string transport, string variant)
    {
        const int inFlight = 8, requests = 100;
        await using var server = await TestServer.StartAsync(transport, variant);
        await using var connection = await server.ConnectAsync();
        // Eight loops on the one connection, each with its own size: a reply matched to the wrong request fails its length check.
        var loops = Enumerable.Range(0, inFlight).Select(async k =>
        {
            var exchange = new Exchange(connection, 100 + k, firstNumber: (long)k << 40);
            for (int i = 0; i < requests; i++)
            {
                Assert.True(await exchange.SendAsync(false, TestContext.Current.CancellationToken) >= 0);
            }
        });
        await Task.WhenAll(loops).WaitAsync(TimeSpan.FromMinutes(2), TestContext.Current.CancellationToken);
    }

    [Theory]
    [MemberData(nameof(TransportCases.ConnectCycleVariants), MemberType = typeof(TransportCases))]
    public async Task Connect_request_close_cycles_run_back_to_back(string transport, string variant)
    {
        await using var server = await TestServer.StartAsync(transport, variant);
        // A one-client server (wcf's host) takes each cycle's connection once it has seen the last one end: on a loaded
        // machine that took longer than 5 s in three CI runs, so its connects get the 20 s ConnectOnceFreeAsync gives
        // (connect_timeout: the request timeout, which this once set instead, does not cover connecting).
        var address = server.ClientAddress();
        if (server.Transport.Capabilities.OneClientAtATime is not null)
        {
            address = AddressQuery.With(address, "connect_timeout", "20s");
        }
        // No warm-up: it would go on until this process's JIT settles, which it does not while other tests run (up to
        // 10 s of cycles a transport). The cycles still come back to back (ThriftTests has a server that once failed so);
        // fewer where each waits for the server to see the last one end.
        int cycles = server.Transport.Capabilities.OneClientAtATime is null ? 32 : 8;
        var result = await ConnectLoop.RunAsync(server.Transport, address, new LoopOptions(Size: 100, Count: cycles, Warmup: 0), ct: TestContext.Current.CancellationToken);
        Assert.Equal(cycles, result.Latency.Count);
        Assert.True(result.Latency.MinUs > 0);
    }

    [Theory]
    [MemberData(nameof(TransportCases.All), MemberType = typeof(TransportCases))]
    public async Task Connecting_to_nothing_fails_clearly_within_seconds(string transport)
    {
        Uri nothing;
        await using (var server = await TestServer.StartAsync(transport))
        {
            // Once the server is gone, nothing is there. A transport that is never refused (ZeroMQ) waits out its connect
            // timeout: 2 s here, so that a loaded machine's slow teardown (8 s in all once, with the default 5 s) still fits.
            nothing = AddressQuery.With(server.ClientAddress(), "connect_timeout", "2s");
        }
        var watch = Stopwatch.StartNew();
        var e = await Assert.ThrowsAnyAsync<TransportException>(async () =>
            await TransportRegistry.Get(transport).ConnectAsync(nothing, TestContext.Current.CancellationToken));
        Assert.True(watch.Elapsed < TimeSpan.FromSeconds(6), $"took {watch.Elapsed}");
        Assert.Contains(AddressQuery.WithoutQuery(nothing).ToString(), e.Message);
    }

    [Theory]
    [MemberData(nameof(TransportCases.AllVariants), MemberType = typeof(TransportCases))]
    public async Task A_server_killed_mid_run_makes_the_client_fail_quickly(string transport, string variant)
    {
        var server = await TestServer.StartAsync(transport, variant);
        IReadOnlyList<string> files;
        try
        {
            await using var connection = await server.ConnectAsync(timeout: "2s");
            var exchange = new Exchange(connection, 64);
            Assert.True(await exchange.SendAsync(false, TestContext.Current.CancellationToken) >= 0);
            files = ServerFiles.AssertMadeBy(server);

            ProcessTree.Kill(System.Diagnostics.Process.GetProcessById(server.Process.ProcessId));
            await ClientFailure.WithinSecondsAsync(exchange);
        }
        finally
        {
            await server.DisposeAsync(); // reaped: the next server must see it dead to remove what it left
        }

        // A killed server cannot remove its files: the next server removes them.
        if (files.Count > 0)
        {
            await (await TestServer.StartAsync(transport, variant)).DisposeAsync();
            ServerFiles.AssertGone(files, "the killed server");
        }
    }

    [Theory]
    [MemberData(nameof(TransportCases.MakingFiles), MemberType = typeof(TransportCases))]
    public async Task A_stopped_server_leaves_no_file_behind(string transport)
    {
        var server = await TestServer.StartAsync(transport);
        IReadOnlyList<string> files;
        await using (var connection = await server.ConnectAsync())
        {
            Assert.True(await new Exchange(connection, 8).SendAsync(false, TestContext.Current.CancellationToken) >= 0);
            files = ServerFiles.AssertMadeBy(server);
        }
        await server.DisposeAsync();

        Assert.Equal(0, server.Process.ExitCode);
        Assert.NotEmpty(files);
        ServerFiles.AssertGone(files, "the stopped server");
    }

    [Theory]
    [MemberData(nameof(TransportCases.AllVariants), MemberType = typeof(TransportCases))]
    public async Task A_server_that_stops_answering_makes_the_client_time_out(string transport, string variant)
    {
        Assert.SkipWhen(OperatingSystem.IsWindows(), "freezes the server with SIGSTOP, which Windows has not");
        await using var server = await TestServer.StartAsync(transport, variant);
        await using (var warming = await server.ConnectAsync())
        {
            // A server's first request can take over a second on a loaded machine (its JIT at work): that is
            // not the timeout this test is about, so it is paid on a connection with the default timeout.
            Assert.True(await new Exchange(warming, 64).SendAsync(false, TestContext.Current.CancellationToken) >= 0);
        }
        await using var connection = await server.ConnectAsync(timeout: "1s");
        var exchange = new Exchange(connection, 64);
        Assert.True(await exchange.SendAsync(false, TestContext.Current.CancellationToken) >= 0);

        Signal(server.Process.ProcessId, "STOP");
        try
        {
            var watch = Stopwatch.StartNew();
            await Assert.ThrowsAsync<TransportTimeoutException>(async () => await exchange.SendAsync(false, TestContext.Current.CancellationToken));
            Assert.InRange(watch.Elapsed, TimeSpan.FromSeconds(0.9), TimeSpan.FromSeconds(4));
        }
        finally
        {
            Signal(server.Process.ProcessId, "CONT");
        }
    }

    /// <summary>
    /// Sends a signal to the server and every process under it (the wcf server is a host process that
    /// 'ipcbench serve' starts) and, for STOP, waits until every thread of them has stopped.
    /// </summary>
    private static void Signal(int pid, string signal)
    {
        int[] tree = [pid, .. ProcessTree.Descendants(pid)];
        using var kill = System.Diagnostics.Process.Start("kill", $"-{signal} {string.Join(' ', tree)}");
        kill.WaitForExit();
        var deadline = DateTime.UtcNow.AddSeconds(5);
        while (signal == "STOP" && DateTime.UtcNow < deadline && !tree.All(AllStopped))
        {
            Thread.Sleep(10);
        }
    }

    private static bool AllStopped(int pid) => Directory.EnumerateDirectories($"/proc/{pid}/task").All(task =>
    {
        string stat = File.ReadAllText(Path.Combine(task, "stat"));
        return stat[(stat.LastIndexOf(')') + 2)..].StartsWith('T'); // the state follows the command name
    });

}
