using System.Diagnostics;
using IpcBench.Contract;
using IpcBench.Kit;

namespace IpcBench.Transports.SharedMemory;

/// <summary>
/// Serves one channel's client on a dedicated thread: sleeps until a client attaches, then answers
/// its requests (waiting as <see cref="WaitMode"/> says) until it detaches or dies, then sleeps again.
/// <see cref="MmfServerGroup"/> keeps one of these per client.
/// </summary>
internal sealed class MmfServer : IServer, IPeer
{
    private readonly SharedChannel _channel;
    private readonly RequestHandler _handler;
    private readonly WaitMode _wait;
    private readonly Action _removeFiles;
    private readonly Action _attached;
    private readonly Thread _thread;
    private volatile bool _stopping;
    private int _client;

    /// <param name="attached">Called on this server's thread each time a client attaches.</param>
    public MmfServer(SharedChannel channel, Uri address, RequestHandler handler, WaitMode wait, Action removeFiles, Action attached)
    {
        _attached = attached;
        _channel = channel;
        _handler = handler;
        _wait = wait;
        _removeFiles = removeFiles;
        Address = address;
        _thread = new Thread(Run) { IsBackground = true, Name = "ipcbench mmf" };
        _thread.Start();
    }

    public Uri Address { get; }

    private void Run()
    {
        int attach = _channel.Attach.Sequence;
        while (!_stopping)
        {
            _client = _channel.ClientPid;
            if (_client == 0)
            {
                // Idle: sleep until a client attaches (never spin with nobody to serve).
                try
                {
                    attach = _channel.Attach.WaitForChange(attach, WaitMode.Block, long.MaxValue, this);
                }
                catch (TransportException)
                {
                    return; // stopping
                }
                continue;
            }
            try
            {
                _attached();
                Serve();
            }
            catch (DetachedException)
            {
            }
            catch (TransportException e) when (!_stopping)
            {
                // A request it left pending (a length no area holds, or sent just before it died) is dropped: the next
                // client of this channel waits until none is pending before it writes.
                _channel.Replies.Length = 0;
                _channel.Replies.Publish(_channel.Requests.Sequence);
                _channel.ReleaseClient(_client);
                Log.Warn($"mmf client {_client}: {e.Message}"); // told once done: whoever reads it finds the channel free
            }
            catch (TransportException)
            {
                return;
            }
        }
    }

    /// <summary>A request is pending while the request sequence differs from the last reply's.</summary>
    private void Serve()
    {
        var requests = _channel.Requests;
        int served = _channel.Replies.Sequence;
        // Checked per request: a wait that a busy client ends every few microseconds never reaches its own
        // 50 ms peer check, and a server that kept answering would never stop.
        while (!_stopping)
        {
            int sequence = requests.WaitForChange(served, _wait, long.MaxValue, this);
            int length = requests.Length;
            if ((uint)length > (uint)_channel.Capacity)
            {
                throw new TransportException($"request length {length} B exceeds the channel capacity of {_channel.Capacity} B");
            }
            int replyLength = _handler.Handle(_channel.RequestArea[..length], _channel.ReplyArea);
            _channel.Replies.Length = replyLength;
            _channel.Replies.Publish(sequence);
            served = sequence;
        }
        throw new TransportException("server stopping");
    }

    /// <summary>While serving: the client must still hold the channel and be alive; while idle: only stopping ends the wait.</summary>
    void IPeer.ThrowIfGone()
    {
        if (_stopping)
        {
            throw new TransportException("server stopping");
        }
        if (_client != 0 && _channel.ClientPid != _client)
        {
            throw new DetachedException();
        }
        if (_client != 0 && !Kit.Processes.ProcessLiveness.IsAlive(_client))
        {
            throw new TransportException($"client process {_client} exited without detaching");
        }
    }

    TransportTimeoutException IPeer.TimedOut() => new("unreachable: the server waits without a deadline");

    /// <summary>A client detached normally: not worth a warning.</summary>
    private sealed class DetachedException() : TransportException("detached");

    public ValueTask DisposeAsync()
    {
        if (_stopping)
        {
            return ValueTask.CompletedTask;
        }
        _stopping = true;
        _channel.MarkStopped();
        _channel.Attach.Poke();
        _channel.Requests.Poke();
        _channel.Replies.Poke(); // a client waiting for a reply sees "stopped" at once
        if (_thread.Join(IServer.StopTimeout))
        {
            _channel.Dispose();
        }
        else
        {
            // Unmapping the channel under a thread that still reads it would crash the process: leave it mapped.
            Log.Warn($"mmf server {Address}: its thread did not stop within {IServer.StopTimeout.TotalSeconds:0} s");
        }
        _removeFiles();
        return ValueTask.CompletedTask;
    }
}
