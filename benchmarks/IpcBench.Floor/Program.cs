using System.Buffers.Binary;
using System.Diagnostics;
using System.Net;
using System.Net.Sockets;

// ipcbench-floor tcp|uds SIZE COUNT: the client; it starts its own server (this program with "serve"), which inherits
// its CPU affinity (run both under 'taskset -c 0' for same-core). The exchange is IpcBench's tcp and uds framing, a
// 4-byte big-endian length and the payload in one send each way, on blocking sockets (TCP_NODELAY for tcp), each
// side taking a whole frame in as few receives as the kernel allows (one, for a small frame); no check of the reply,
// no histogram, no options: the .NET floor that ping's harness is measured against (benchmarks/floor.sh). Prints one
// line in the C yardstick's format (shared/tools/ipcref.c).
if (args is ["serve", var kind, var address])
{
    using var listener = Listen(kind, address);
    Console.WriteLine("READY");
    using var peer = listener.Accept();
    Serve(peer);
    return 0;
}
if (args is not [var transport and ("tcp" or "uds"), var sizeText, var countText]
    || !int.TryParse(sizeText, out int size) || size < 0 || !int.TryParse(countText, out int count) || count < 1)
{
    Console.Error.WriteLine("usage: ipcbench-floor tcp|uds SIZE COUNT");
    return 2;
}
string where = transport == "tcp" ? FreeTcpPort() : Path.Combine(Path.GetTempPath(), $"ipcbench-floor-{Environment.ProcessId}.sock");
using var server = Process.Start(new ProcessStartInfo(Environment.ProcessPath!, ["serve", transport, where]) { RedirectStandardOutput = true })!;
try
{
    if (server.StandardOutput.ReadLine() != "READY")
    {
        Console.Error.WriteLine("ipcbench-floor: the server did not start");
        return 1;
    }
    using var socket = Connect(transport, where);
    byte[] request = new byte[4 + size], reply = new byte[4 + size];
    BinaryPrimitives.WriteInt32BigEndian(request, size);
    var ticks = new long[count];
    for (int i = -Math.Min(count, 10_000); i < count; i++) // warm-up first, as many as measured (10,000 at most)
    {
        long start = Stopwatch.GetTimestamp();
        socket.Send(request);
        ReceiveExactly(socket, reply); // the echo: as long as the request
        if (i >= 0)
        {
            ticks[i] = Stopwatch.GetTimestamp() - start;
        }
    }
    Array.Sort(ticks);
    double Us(double p) => ticks[Math.Clamp((int)Math.Ceiling(p / 100 * count) - 1, 0, count - 1)] * 1e6 / Stopwatch.Frequency;
    Console.WriteLine($"{transport} size={size} n={count} p50={Us(50):0.00}us p90={Us(90):0.00}us p99={Us(99):0.00}us p999={Us(99.9):0.00}us");
    return 0;
}
finally
{
    server.Kill();
    server.WaitForExit(5000);
    if (transport == "uds")
    {
        File.Delete(where);
    }
}

static Socket Listen(string kind, string address)
{
    var socket = kind == "tcp" ? new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) : new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified);
    socket.Bind(kind == "tcp" ? new IPEndPoint(IPAddress.Loopback, int.Parse(address)) : new UnixDomainSocketEndPoint(address));
    socket.Listen(1);
    return socket;
}

static Socket Connect(string kind, string address)
{
    if (kind == "uds")
    {
        var uds = new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified);
        uds.Connect(new UnixDomainSocketEndPoint(address));
        return uds;
    }
    var tcp = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
    tcp.Connect(new IPEndPoint(IPAddress.Loopback, int.Parse(address)));
    return tcp;
}

static void Serve(Socket peer)
{
    if (peer.AddressFamily == AddressFamily.InterNetwork)
    {
        peer.NoDelay = true;
    }
    var buffer = new byte[4 + (16 << 20)];
    while (true)
    {
        int received = 0;
        do
        {
            int n = peer.Receive(buffer.AsSpan(received));
            if (n == 0)
            {
                return; // the client is gone
            }
            received += n;
        }
        while (received < 4 || received < 4 + BinaryPrimitives.ReadInt32BigEndian(buffer));
        peer.Send(buffer.AsSpan(0, received));
    }
}

static bool ReceiveExactly(Socket socket, Span<byte> into)
{
    while (!into.IsEmpty)
    {
        int n = socket.Receive(into);
        if (n == 0)
        {
            return false;
        }
        into = into[n..];
    }
    return true;
}

static string FreeTcpPort()
{
    using var probe = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
    probe.Bind(new IPEndPoint(IPAddress.Loopback, 0));
    return ((IPEndPoint)probe.LocalEndPoint!).Port.ToString(System.Globalization.CultureInfo.InvariantCulture);
}
