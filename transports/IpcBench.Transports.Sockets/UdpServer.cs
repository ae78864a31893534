using System.Net;
using System.Net.Sockets;
using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Kit.Processes;

namespace IpcBench.Transports.Sockets;

/// <summary>Answers every datagram from whoever sent it, on one dedicated thread or one async loop.</summary>
internal sealed class UdpServer : IServer
{
    private readonly Socket _socket;
    private readonly RequestHandler _handler;
    private readonly Task _loop;
    private volatile bool _stopping;

    public UdpServer(Socket socket, Uri address, RequestHandler handler, IoMode io)
    {
        _socket = socket;
        _handler = handler;
        Address = address;
        if (io == IoMode.Sync)
        {
            _loop = DedicatedThread.Start("ipcbench udp", Serve);
        }
        else
        {
            _loop = Task.Run(ServeAsync);
        }
    }

    public Uri Address { get; }

    private void Serve()
    {
        var from = new SocketAddress(_socket.AddressFamily);
        byte[] request = new byte[Datagram.MaxSize];
        byte[] reply = new byte[Datagram.MaxSize];
        while (!_stopping)
        {
            try
            {
                int received = _socket.ReceiveFrom(request, SocketFlags.None, from);
                if (Answer(request.AsSpan(0, received), reply) is int length and > 0)
                {
                    _socket.SendTo(reply.AsSpan(0, length), SocketFlags.None, from);
                }
            }
            catch (Exception e) when (e is SocketException or ObjectDisposedException)
            {
                // A client that went away makes the kernel report ICMP "port unreachable" on a later
                // receive: that concerns one client, not the server, which goes on until stopped.
            }
        }
    }

    private async Task ServeAsync()
    {
        var from = new SocketAddress(_socket.AddressFamily);
        byte[] request = new byte[Datagram.MaxSize];
        byte[] reply = new byte[Datagram.MaxSize];
        while (!_stopping)
        {
            try
            {
                int received = await _socket.ReceiveFromAsync(request, SocketFlags.None, from).ConfigureAwait(false);
                if (Answer(request.AsSpan(0, received), reply) is int length and > 0)
                {
                    await _socket.SendToAsync(reply.AsMemory(0, length), SocketFlags.None, from).ConfigureAwait(false);
                }
            }
            catch (Exception e) when (e is SocketException or ObjectDisposedException)
            {
                // A client that went away makes the kernel report ICMP "port unreachable" on a later
                // receive: that concerns one client, not the server, which goes on until stopped.
            }
        }
    }

    /// <summary>Builds the reply datagram; returns 0 for a datagram too short to carry a sequence number.</summary>
    private int Answer(ReadOnlySpan<byte> request, Span<byte> reply)
    {
        if (request.Length < Datagram.HeaderSize)
        {
            return 0;
        }
        request[..Datagram.HeaderSize].CopyTo(reply);
        return Datagram.HeaderSize + _handler.Handle(request[Datagram.HeaderSize..], reply[Datagram.HeaderSize..]);
    }

    public async ValueTask DisposeAsync()
    {
        _stopping = true;
        _socket.Dispose(); // unblocks the receive
        try
        {
            await _loop.WaitAsync(TimeSpan.FromSeconds(5)).ConfigureAwait(false);
        }
        catch (Exception e) when (e is TimeoutException or ObjectDisposedException or SocketException)
        {
        }
    }
}
