using System.Diagnostics;
using System.Globalization;
using System.Net;
using System.Net.Sockets;
using System.Text;
using IpcBench.Kit.Processes;

namespace IpcBench.Conformance;

/// <summary>
/// A redis-server of one test's own (Debian's, as ./test.sh installs it) on a loopback port and a Unix socket of its
/// own, so that a test may look at its channels and keys or stop it without touching the one other tests use; and a
/// few RESP commands sent by hand, sharing no code with StackExchange.Redis. Disposing it stops it.
/// </summary>
public sealed class ScratchRedis : IAsyncDisposable
{
    private readonly Process _server;
    private readonly DirectoryInfo _directory;
    private readonly string? _password;

    private ScratchRedis(Process server, DirectoryInfo directory, int port, string? password)
    {
        _server = server;
        _directory = directory;
        _password = password;
        Port = port;
    }

    public int Port { get; }

    public string SocketPath => Path.Combine(_directory.FullName, "redis.sock");

    /// <summary>The URL for IPCBENCH_REDIS_URL, and the host and port of a redis address.</summary>
    public string Url => $"redis://127.0.0.1:{Port}";

    /// <param name="password">A password it asks of every client (requirepass), or none.</param>
    public static async Task<ScratchRedis> StartAsync(string? password = null)
    {
        int port = LoopbackPort.Free();
        var directory = Directory.CreateTempSubdirectory("ipcbench-redis-");
        var info = new ProcessStartInfo("redis-server") { RedirectStandardOutput = true, RedirectStandardError = true };
        foreach (string arg in new[] { "--bind", "127.0.0.1", "--port", Invariant(port), "--unixsocket", Path.Combine(directory.FullName, "redis.sock"),
                     "--unixsocketperm", "700", "--save", "", "--appendonly", "no", "--dir", directory.FullName })
        {
            info.ArgumentList.Add(arg);
        }
        if (password is not null)
        {
            info.ArgumentList.Add("--requirepass");
            info.ArgumentList.Add(password);
        }
        var redis = new ScratchRedis(Process.Start(info)!, directory, port, password);
        _ = redis._server.StandardOutput.ReadToEndAsync();
        _ = redis._server.StandardError.ReadToEndAsync();
        var deadline = DateTime.UtcNow + TimeSpan.FromSeconds(20);
        while (true)
        {
            try
            {
                await redis.CommandAsync("PING");
                return redis;
            }
            catch (SocketException) when (DateTime.UtcNow < deadline && !redis._server.HasExited)
            {
                await Task.Delay(200);
            }
        }
    }

    /// <summary>The channels that have subscribers now (PUBSUB CHANNELS).</summary>
    public async Task<IReadOnlyList<string>> ChannelsAsync() =>
        [.. ((object[])(await CommandAsync("PUBSUB", "CHANNELS"))!).Select(c => Encoding.UTF8.GetString((byte[])c))];

    /// <summary>The keys it holds (DBSIZE).</summary>
    public async Task<long> KeyCountAsync() => (long)(await CommandAsync("DBSIZE"))!;

    /// <summary>The client connections it holds now, this question's own included (CLIENT LIST).</summary>
    public async Task<int> ConnectionCountAsync() =>
        Encoding.UTF8.GetString((byte[])(await CommandAsync("CLIENT", "LIST"))!).Split('\n', StringSplitOptions.RemoveEmptyEntries).Length;

    /// <summary>One command on a connection of its own: the reply as a long, a byte[], an object[] or null.</summary>
    public async Task<object?> CommandAsync(params object[] args)
    {
        await using var connection = await RespConnection.OpenAsync(Port);
        if (_password is not null)
        {
            await connection.SendAsync("AUTH", _password);
            await connection.ReadAsync();
        }
        await connection.SendAsync(args);
        return await connection.ReadAsync();
    }

    /// <summary>Stops it as an operator would (SIGTERM: it closes every connection, then exits).</summary>
    public async Task StopAsync()
    {
        using (var kill = Process.Start("kill", ["-TERM", Invariant(_server.Id)]))
        {
            await kill.WaitForExitAsync();
        }
        Assert.True(_server.WaitForExit(TimeSpan.FromSeconds(20)), "redis-server did not stop on SIGTERM");
    }

    public async ValueTask DisposeAsync()
    {
        if (!_server.HasExited)
        {
            ProcessTree.Kill(_server);
            await _server.WaitForExitAsync();
        }
        _server.Dispose();
        _directory.Delete(recursive: true);
    }

    private static string Invariant(long n) => n.ToString(CultureInfo.InvariantCulture);

    /// <summary>RESP2 by hand: commands as arrays of bulk strings, replies read as they come, all within 10 s of opening.</summary>
    public sealed class RespConnection : IAsyncDisposable
    {
        private readonly TcpClient _client;
        private readonly BufferedStream _stream;
        private readonly CancellationTokenSource _timeout = new(TimeSpan.FromSeconds(10));

        private RespConnection(TcpClient client)
        {
            _client = client;
            _stream = new BufferedStream(client.GetStream());
        }

        public static async Task<RespConnection> OpenAsync(int port)
        {
            var client = new TcpClient();
            await client.ConnectAsync(IPAddress.Loopback, port);
            return new RespConnection(client);
        }

        /// <summary>Each argument a string (sent as UTF-8) or a byte[].</summary>
        public async Task SendAsync(params object[] args)
        {
            var command = new MemoryStream();
            command.Write(Encoding.ASCII.GetBytes($"*{args.Length}\r\n"));
            foreach (object arg in args)
            {
                byte[] bytes = arg as byte[] ?? Encoding.UTF8.GetBytes((string)arg);
                command.Write(Encoding.ASCII.GetBytes($"${bytes.Length}\r\n"));
                command.Write(bytes);
                command.Write("\r\n"u8);
            }
            await _stream.WriteAsync(command.ToArray(), _timeout.Token);
            await _stream.FlushAsync(_timeout.Token);
        }

        public async Task<object?> ReadAsync()
        {
            string line = await ReadLineAsync();
            return line[0] switch
            {
                '+' => Encoding.UTF8.GetBytes(line[1..]),
                '-' => throw new InvalidOperationException($"redis-server: {line[1..]}"),
                ':' => long.Parse(line[1..], CultureInfo.InvariantCulture),
                '$' when line == "$-1" => null,
                '$' => await ReadBulkAsync(int.Parse(line[1..], CultureInfo.InvariantCulture)),
                '*' => await ReadArrayAsync(int.Parse(line[1..], CultureInfo.InvariantCulture)),
                _ => throw new InvalidDataException($"not a RESP2 reply: {line}"),
            };
        }

        private async Task<object?[]> ReadArrayAsync(int count)
        {
            var items = new object?[count];
            for (int i = 0; i < count; i++)
            {
                items[i] = await ReadAsync();
            }
            return items;
        }

        private async Task<byte[]> ReadBulkAsync(int length)
        {
            byte[] bulk = new byte[length + 2];
            await _stream.ReadExactlyAsync(bulk, _timeout.Token);
            return bulk[..length];
        }

        private async Task<string> ReadLineAsync()
        {
            var line = new StringBuilder();
            byte[] one = new byte[1];
            while (!line.ToString().EndsWith("\r\n", StringComparison.Ordinal))
            {
                await _stream.ReadExactlyAsync(one, _timeout.Token);
                line.Append((char)one[0]);
            }
            return line.ToString(0, line.Length - 2);
        }

        public async ValueTask DisposeAsync()
        {
            await _stream.DisposeAsync();
            _client.Dispose();
            _timeout.Dispose();
        }
    }
}
