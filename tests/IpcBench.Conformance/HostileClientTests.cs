using System.Globalization;
using System.Net;
using System.Net.Sockets;
using System.Runtime.Versioning;
using IpcBench.Contract;
using IpcBench.Harness.Measurement;
using IpcBench.Kit.Framing;
using IpcBench.Kit.Processes;

namespace IpcBench.Conformance;

/// <summary>
/// Hostile clients, through the real servers (Kestrel under gRPC, SignalR and HTTP, the Mono WCF host, NetMQ, libzmq,
/// StreamJsonRpc, IpcBench's own framing): random bytes from a crowd of connections, a slow sender, stray datagrams, at
/// every address a server offers as /proc tells it. The server goes on serving a well-formed client during and after,
/// and its memory stays bounded. Linux only (/proc).
/// </summary>
[SupportedOSPlatform("linux")]
public class HostileClientTests(ITestOutputHelper output)
{
    private const int Crowd = 100;
    private const int GarbagePerConnection = 4096;
    private const int SlowBytes = 200;
    private static readonly TimeSpan SlowGap = TimeSpan.FromMilliseconds(5);

    /// <summary>How much a server's resident memory may grow under these clients: a few MB each would be a leak.</summary>
    private const long MemoryBound = 256L << 20;

    /// <summary>
    /// The servers that survive fewer garbage connections at once than <see cref="Crowd"/>, how many, and why: the library's
    /// limit, measured here (with a client connected and a slow sender beside), not IpcBench's code. SECURITY.md lists them.
    /// </summary>
    private static readonly Dictionary<string, (int Crowd, string Why)> Limits = new()
    {
        ["zmq"] = (1, "NetMQ 4.0.4.5's ResponseSocket receives nothing more after twenty garbage connections at once (five pass), as zeromq/netmq#693 reports"),
        ["zmq-libzmq"] = (1, "libzmq 4.3.4's REP socket answers a connected client no more after five garbage connections at once (two pass)"),
    };

    /// <summary>Every transport whose server listens itself: not a broker's clients (amqp, nats), not shared memory (MmfTests lie in the channel).</summary>
    public static TheoryData<string> Listeners => [.. Listening.Select(t => t.Name)];

    /// <summary>The listeners that take connections: all but a datagram server's (udp), whose datagrams the crowd test floods.</summary>
    public static TheoryData<string> ConnectionListeners => [.. Listening.Where(t => t.Capabilities.Has(TransportFeatures.Reliable)).Select(t => t.Name)];

    private static IEnumerable<ITransport> Listening => TransportCases.Served.Where(t => !t.Capabilities.Has(TransportFeatures.Brokered) && t.Name != "mmf");

    [Theory]
    [MemberData(nameof(Listeners))]
    public async Task Random_bytes_from_a_crowd_and_a_slow_sender_leave_a_well_formed_client_served(string transport)
    {
        Assert.SkipUnless(OperatingSystem.IsLinux(), "finds every address the server offers, and its memory, in /proc, which is Linux's");
        await using var server = await TestServer.StartAsync(transport);
        // A datagram transport may lose a request or reply while the flood fills socket buffers (loss is what it does
        // then), so there a lost one costs a short timeout and most, not all, must be answered.
        bool lossy = server.Transport.Capabilities.MayLoseMessages;
        var good = await server.ConnectAsync(timeout: lossy ? "1s" : "5s");
        var exchange = new Exchange(good, 100);
        Assert.True(await exchange.SendAsync(false, TestContext.Current.CancellationToken) >= 0);
        int pid = server.Process.ProcessId;
        long before = Memory(pid, "VmRSS");
        var exposure = ServerExposure.Of(pid);
        var streams = exposure.Listening.Select(e => (EndPoint)e).Concat(exposure.ServerSocketFiles.Select(f => new UnixDomainSocketEndPoint(f))).ToList();
        Assert.True(streams.Count + exposure.Bound.Count > 0, $"{transport}: no address found to attack");

        int crowd = Limits.TryGetValue(transport, out var limit) ? limit.Crowd : Crowd;
        var random = new Random(41);
        var hostile = new List<Socket>();
        try
        {
            foreach (var endpoint in streams)
            {
                var slow = await ConnectAsync(endpoint);
                var slowSending = SendSlowlyAsync(slow, random.Next());
                if (slow is not null)
                {
                    hostile.Add(slow);
                }
                int delivered = 0; // connections that took their garbage: a crowd may fill the backlog, but none at all attacked nothing
                for (int i = 0; i < crowd; i++)
                {
                    if (await ConnectAsync(endpoint) is { } socket)
                    {
                        hostile.Add(socket);
                        delivered += await SendQuietlyAsync(socket, Garbage(random, GarbagePerConnection)) ? 1 : 0;
                    }
                }
                Assert.True(delivered > 0, $"{transport}: none of {crowd} hostile connections to {endpoint} connected and sent its bytes");
                // While they are connected: the well-formed client is served, every reply checked.
                await AssertServedAsync(exchange, lossy);
                await slowSending;
            }
            foreach (var endpoint in exposure.Bound)
            {
                using var udp = new Socket(endpoint.AddressFamily, SocketType.Dgram, ProtocolType.Udp);
                int datagrams = 0;
                for (int i = 0; i < Crowd; i++)
                {
                    byte[] garbage = Garbage(random, random.Next(0, 2000));
                    datagrams += await udp.SendToAsync(garbage, SocketFlags.None, endpoint, TestContext.Current.CancellationToken) == garbage.Length ? 1 : 0;
                }
                Assert.Equal(Crowd, datagrams); // a datagram is sent whole or not at all
                await AssertServedAsync(exchange, lossy);
            }
            Assert.False(server.Process.HasExited, server.Process.RecentErrors);
        }
        finally
        {
            hostile.ForEach(s => s.Dispose());
            await good.DisposeAsync();
        }

        long peak = Memory(pid, "VmHWM");
        output.WriteLine((limit.Why is null ? "" : $"{transport} is given {crowd}: {limit.Why}\n") + $"{transport}: {hostile.Count} hostile connections to {streams.Count} stream address(es), "
            + $"{(exposure.Bound.Count > 0 ? Crowd : 0)} datagrams; resident memory {before >> 20} MB before, peak {peak >> 20} MB");
        Assert.True(peak - before < MemoryBound, $"{transport} grew from {before >> 20} MB to {peak >> 20} MB");

        // Afterwards, a new client is served as usual.
        await using var fresh = await server.ConnectOnceFreeAsync();
        await AssertServedAsync(new Exchange(fresh, 1000), lossy, count: 4);
        Assert.False(server.Process.HasExited);
    }

    /// <summary>
    /// Connections that open and say nothing (a port scan, a load balancer's TCP probe) hold up no client behind them: a new
    /// one is served within its 5 s connect timeout while they stay open. The Mono WCF host read each connection's preamble
    /// in turn, within 10 s, so three such connections held every later client for 30 s.
    /// </summary>
    [Theory]
    [MemberData(nameof(ConnectionListeners))]
    public async Task Connections_that_say_nothing_hold_up_no_new_client(string transport)
    {
        Assert.SkipUnless(OperatingSystem.IsLinux(), "finds every address the server offers in /proc, which is Linux's");
        const int silentPerAddress = 3;
        await using var server = await TestServer.StartAsync(transport);
        var exposure = ServerExposure.Of(server.Process.ProcessId);
        var streams = exposure.Listening.Select(e => (EndPoint)e).Concat(exposure.ServerSocketFiles.Select(f => new UnixDomainSocketEndPoint(f))).ToList();
        Assert.True(streams.Count > 0, $"{transport}: no address found to connect to");
        var silent = new List<Socket>();
        try
        {
            foreach (var endpoint in streams)
            {
                for (int i = 0; i < silentPerAddress; i++)
                {
                    silent.Add(await ConnectAsync(endpoint) ?? throw new InvalidOperationException($"{transport}: {endpoint} refused a connection"));
                }
            }
            bool lossy = server.Transport.Capabilities.MayLoseMessages;
            await using var client = await server.ConnectAsync(timeout: "5s");
            await AssertServedAsync(new Exchange(client, 100), lossy, count: 4);
            Assert.False(server.Process.HasExited, server.Process.RecentErrors);
        }
        finally
        {
            silent.ForEach(s => s.Dispose());
        }
    }

    /// <summary>Sends <paramref name="count"/> requests: every one answered (replies checked), or three in four on a lossy transport.</summary>
    private static async Task AssertServedAsync(Exchange exchange, bool lossy, int count = 20)
    {
        int answered = 0;
        for (int i = 0; i < count; i++)
        {
            if (await exchange.SendAsync(lossy, default) >= 0)
            {
                answered++;
            }
        }
        Assert.True(answered >= (lossy ? count * 3 / 4 : count), $"{answered} of {count} requests answered");
    }

    [Theory]
    [MemberData(nameof(TransportCases.Streams), MemberType = typeof(TransportCases))]
    public async Task A_request_sent_one_byte_at_a_time_is_answered_whole_while_others_are_served(string transport)
    {
        await using var server = await TestServer.StartAsync(transport);
        await using var good = await server.ConnectAsync();
        var exchange = new Exchange(good, 64);
        using var slow = await RawClient.ConnectAsync(server.Process.Address);
        byte[] payload = Garbage(new Random(43), 300);
        byte[] frame = new byte[LengthPrefix.HeaderSize + payload.Length];
        LengthPrefix.Write(frame, payload.Length);
        payload.CopyTo(frame, LengthPrefix.HeaderSize);

        for (int i = 0; i < frame.Length; i++)
        {
            await slow.SendAsync(frame.AsMemory(i, 1), SocketFlags.None, TestContext.Current.CancellationToken);
            if (i % 10 == 0)
            {
                Assert.True(await exchange.SendAsync(false, TestContext.Current.CancellationToken) >= 0); // the slow sender holds up no one
            }
        }

        Assert.Equal(frame, await ReadExactlyAsync(slow, frame.Length)); // an echo, framed the same way
    }

    [Theory]
    [MemberData(nameof(TransportCases.Streams), MemberType = typeof(TransportCases))]
    public async Task An_empty_request_gets_an_empty_reply(string transport)
    {
        await using var server = await TestServer.StartAsync(transport);
        using var raw = await RawClient.ConnectAsync(server.Process.Address);
        await raw.SendAsync(new byte[LengthPrefix.HeaderSize], SocketFlags.None);
        Assert.Equal(new byte[LengthPrefix.HeaderSize], await ReadExactlyAsync(raw, LengthPrefix.HeaderSize));
    }

    [Theory]
    [MemberData(nameof(TransportCases.Streams), MemberType = typeof(TransportCases))]
    public async Task Clients_that_announce_the_largest_request_and_send_little_cost_the_server_little_memory(string transport)
    {
        Assert.SkipUnless(OperatingSystem.IsLinux(), "reads the server's memory from /proc, which is Linux's");
        const int clients = 200, sent = 1024;
        await using var server = await TestServer.StartAsync(transport);
        int pid = server.Process.ProcessId;
        await using var good = await server.ConnectAsync();
        var exchange = new Exchange(good, 64);
        Assert.True(await exchange.SendAsync(false, TestContext.Current.CancellationToken) >= 0);
        long before = Memory(pid, "VmRSS");

        var liars = new List<Socket>();
        try
        {
            byte[] frame = new byte[LengthPrefix.HeaderSize + sent];
            LengthPrefix.Write(frame, LengthPrefix.DefaultMaxPayload); // the largest request a server takes, 16 MiB
            for (int i = 0; i < clients; i++)
            {
                var socket = await RawClient.ConnectAsync(server.Process.Address);
                liars.Add(socket);
                await socket.SendAsync(frame, SocketFlags.None);
            }
            Assert.True(await exchange.SendAsync(false, TestContext.Current.CancellationToken) >= 0);
            await Task.Delay(500, TestContext.Current.CancellationToken); // every session has read what it was sent
            long peak = Memory(pid, "VmHWM");
            output.WriteLine($"{transport}: {clients} clients announcing {LengthPrefix.DefaultMaxPayload >> 20} MiB and sending {sent} B: "
                + $"resident memory {before >> 20} MB before, peak {peak >> 20} MB");
            Assert.True(peak - before < MemoryBound, $"resident memory grew by {(peak - before) >> 20} MB");
            Assert.False(server.Process.HasExited, server.Process.RecentErrors);
        }
        finally
        {
            liars.ForEach(s => s.Dispose());
        }
        Assert.True(await exchange.SendAsync(false, TestContext.Current.CancellationToken) >= 0);
    }

    /// <summary>StreamJsonRpc buffers whatever a header announces: the server's guard drops a connection whose header is over the limit.</summary>
    [Theory]
    [InlineData("jsonrpc")]
    [InlineData("jsonrpc-json")]
    public async Task A_jsonrpc_header_announcing_a_gigabyte_costs_its_sender_the_connection_and_no_one_else_anything(string transport)
    {
        await using var server = await TestServer.StartAsync(transport);
        await using var good = await server.ConnectAsync();
        var exchange = new Exchange(good, 64);
        Assert.True(await exchange.SendAsync(false, TestContext.Current.CancellationToken) >= 0);
        using var liar = await RawClient.ConnectAsync(server.Process.Address);
        byte[] header = new byte[4];
        System.Buffers.Binary.BinaryPrimitives.WriteUInt32BigEndian(header, 1u << 30);
        await liar.SendAsync(transport == "jsonrpc" ? header : System.Text.Encoding.ASCII.GetBytes("Content-Length: 1073741824\r\n\r\n"), SocketFlags.None);

        Assert.Equal(0, await RawClient.ReadUntilClosedAsync(liar, TimeSpan.FromSeconds(10)));
        Assert.True(await exchange.SendAsync(false, TestContext.Current.CancellationToken) >= 0);
        Assert.False(server.Process.HasExited, server.Process.RecentErrors);
    }

    /// <summary>A /proc/PID/status figure (VmRSS, VmHWM) in bytes, summed over the server and the processes under it.</summary>
    private static long Memory(int pid, string field) =>
        new[] { pid }.Concat(ProcessTree.Descendants(pid)).Sum(p =>
            File.Exists($"/proc/{p}/status")
                ? File.ReadLines($"/proc/{p}/status").Where(l => l.StartsWith(field + ":", StringComparison.Ordinal))
                    .Select(l => long.Parse(l.Split(' ', StringSplitOptions.RemoveEmptyEntries)[1], CultureInfo.InvariantCulture) * 1024).FirstOrDefault()
                : 0);

    private static byte[] Garbage(Random random, int length)
    {
        var bytes = new byte[length];
        random.NextBytes(bytes);
        return bytes;
    }

    /// <summary>A connection, or null when the server refuses or does not accept within 3 s (a crowd may fill its backlog).</summary>
    private static async Task<Socket?> ConnectAsync(EndPoint endpoint)
    {
        var socket = new Socket(endpoint.AddressFamily, SocketType.Stream, endpoint is UnixDomainSocketEndPoint ? ProtocolType.Unspecified : ProtocolType.Tcp);
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(3));
        try
        {
            await socket.ConnectAsync(endpoint, timeout.Token);
            return socket;
        }
        catch (Exception e) when (e is SocketException or OperationCanceledException)
        {
            socket.Dispose();
            return null;
        }
    }

    /// <summary>Sends, and stops quietly when the server has hung up (what it may do with garbage).</summary>
    private static async Task<bool> SendQuietlyAsync(Socket socket, ReadOnlyMemory<byte> bytes)
    {
        try
        {
            using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(3));
            await socket.SendAsync(bytes, SocketFlags.None, timeout.Token);
            return true;
        }
        catch (Exception e) when (e is SocketException or OperationCanceledException)
        {
            return false;
        }
    }

    private static async Task SendSlowlyAsync(Socket? socket, int seed)
    {
        if (socket is null)
        {
            return;
        }
        byte[] bytes = Garbage(new Random(seed), SlowBytes);
        for (int i = 0; i < bytes.Length && await SendQuietlyAsync(socket, bytes.AsMemory(i, 1)); i++)
        {
            await Task.Delay(SlowGap);
        }
    }

    private static async Task<byte[]> ReadExactlyAsync(Socket socket, int length)
    {
        byte[] buffer = new byte[length];
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(5));
        for (int read = 0; read < length;)
        {
            int n = await socket.ReceiveAsync(buffer.AsMemory(read), SocketFlags.None, timeout.Token);
            Assert.True(n > 0, $"the server closed the connection after {read} of {length} B");
            read += n;
        }
        return buffer;
    }
}
