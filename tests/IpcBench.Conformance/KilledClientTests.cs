using IpcBench.Kit.Processes;

namespace IpcBench.Conformance;

/// <summary>
/// Client processes SIGKILLed mid-run, per transport: the server goes on serving and holds no more files for it. A class
/// of its own, beside FaultTests: a class runs its cases one at a time, and these take some 17 s a transport.
/// </summary>
public class KilledClientTests
{
    [Theory]
    [MemberData(nameof(TransportCases.All), MemberType = typeof(TransportCases))]
    public async Task Client_processes_killed_mid_run_leave_the_server_serving_and_holding_no_more_files(string transport)
    {
        Assert.SkipUnless(OperatingSystem.IsLinux(), "counts the server's open files in /proc, which is Linux's");
        await using var server = await TestServer.StartAsync(transport);
        int idle = await SettledOpenFilesAsync(server.Process.ProcessId);
        // The first killed client may cost a server something once (mmf's next channel); a leak grows with every one
        // after it. One handle may still be closing on a loaded machine (seen once in a full CI run: a socket more on the
        // tcp-nagle, tcp-tls and pipe servers, never alone), so two more clients must cost less than two.
        int afterOne = await KillAClientMidRunAsync(server, transport, freed: idle);
        await KillAClientMidRunAsync(server, transport, freed: afterOne);
        int afterThree = await KillAClientMidRunAsync(server, transport, freed: afterOne);
        Assert.True(afterThree < afterOne + 2,
            $"the server holds {afterThree} files, {afterThree - afterOne} more than after the first killed client ({idle} idle): {Describe(server.Process.ProcessId)}");
        Assert.False(server.Process.HasExited);
    }

    /// <summary>
    /// Runs 'ipcbench ping' against the server (mid-run once the server holds more than <paramref name="freed"/> files:
    /// what it held idle, or after the first killed client, which may have cost something once), SIGKILLs it, checks that
    /// the next client is served; returns the server's open files once they are back to <paramref name="freed"/>, or after 10 s.
    /// </summary>
    private static async Task<int> KillAClientMidRunAsync(TestServer server, string transport, int freed)
    {
        using var client = StartPing(server, transport, "--duration", "60s");
        var deadline = DateTime.UtcNow + TimeSpan.FromSeconds(3);
        while (OpenFiles(server.Process.ProcessId) <= freed && DateTime.UtcNow < deadline) // a broker's client opens nothing on the server
        {
            await Task.Delay(50);
        }
        await Task.Delay(300); // mid-run
        if (client.HasExited) // its stderr is awaited only then: it ends when the client does
        {
            Assert.Fail($"the client process ended by itself: {await client.ErrorsAsync()}");
        }
        await client.KillAsync();

        // The next client, a process too, so that its connection is closed once it has exited; a server that serves one
        // client at a time (Mono's WCF host) takes it once it has seen the killed one's connection end.
        using (var next = StartPing(server, transport, "--count", "50", "--wait-for-server", "20s"))
        {
            await next.SucceedsAsync(TimeSpan.FromSeconds(40), "the next client");
        }
        return await OpenFilesOnceFreedAsync(server.Process.ProcessId, freed);
    }

    private static PingProcess StartPing(TestServer server, string transport, params string[] run) =>
        PingProcess.Start(["--transport", transport, "--server", server.ClientAddress().AbsoluteUri, "--warmup", "0", "--no-results", .. run]);

    /// <summary>The files open in the server and every process under it once that count has not moved for half a second (10 s at most).</summary>
    private static async Task<int> SettledOpenFilesAsync(int pid)
    {
        int last = OpenFiles(pid);
        for (int steady = 0, tries = 0; steady < 5 && tries < 100; tries++)
        {
            await Task.Delay(100);
            int now = OpenFiles(pid);
            steady = now == last ? steady + 1 : 0;
            last = now;
        }
        return last;
    }

    /// <summary>The open files of the server's processes once they are <paramref name="freed"/> or fewer (10 s at most).</summary>
    private static async Task<int> OpenFilesOnceFreedAsync(int pid, int freed)
    {
        int now = OpenFiles(pid);
        for (int tries = 0; now > freed && tries < 100; tries++)
        {
            await Task.Delay(100);
            now = OpenFiles(pid);
        }
        return now;
    }

    /// <summary>
    /// What a client can cost the server and every process under it: its sockets and shared-memory files. Not the
    /// program's own files, nor the runtime's event and timer handles: an assembly or a timer made on a rarely taken path
    /// is no leak.
    /// </summary>
    private static int OpenFiles(int pid) => Handles(pid).Count;

    private static List<string> Handles(int pid) =>
        [.. new[] { pid }.Concat(ProcessTree.Descendants(pid)).SelectMany(p => Directory.Exists($"/proc/{p}/fd")
            ? Directory.GetFileSystemEntries($"/proc/{p}/fd").Select(LinkTarget)
                .Where(target => target is not null && (target.StartsWith("socket:") || target.StartsWith("/dev/shm/"))).Select(t => t!)
            : [])];

    /// <summary>The server's sockets as ss would name them (state, local and peer address), for a failure's message.</summary>
    private static string Describe(int pid)
    {
        var inodes = Handles(pid).Where(h => h.StartsWith("socket:")).Select(h => h["socket:[".Length..^1]).ToHashSet();
        var rows = new[] { "tcp", "tcp6" }.SelectMany(t => File.Exists($"/proc/{pid}/net/{t}") ? File.ReadLines($"/proc/{pid}/net/{t}").Skip(1) : [])
            .Select(l => l.Split(' ', StringSplitOptions.RemoveEmptyEntries)).Where(f => f.Length > 9 && inodes.Contains(f[9]))
            .Select(f => $"tcp {f[1]} -> {f[2]} state {f[3]}");
        var unix = File.Exists($"/proc/{pid}/net/unix") ? File.ReadLines($"/proc/{pid}/net/unix").Skip(1)
            .Select(l => l.Split(' ', StringSplitOptions.RemoveEmptyEntries)).Where(f => f.Length > 6 && inodes.Contains(f[6]))
            .Select(f => $"unix state {f[5]} {(f.Length > 7 ? f[7] : "")}") : [];
        return string.Join("; ", rows.Concat(unix));
    }

    private static string? LinkTarget(string fd)
    {
        try
        {
            return new FileInfo(fd).LinkTarget;
        }
        catch (IOException)
        {
            return null; // closed while we looked
        }
    }
}
