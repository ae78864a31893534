using Microsoft.Win32.SafeHandles;

namespace IpcBench.Transports.ZeroMQ;

/// <summary>A libzmq context (<c>zmq_ctx_new</c>), terminated once it is disposed and no socket of its is open.</summary>
internal sealed class ZmqContextHandle() : SafeHandleZeroOrMinusOneIsInvalid(ownsHandle: true)
{
    protected override bool ReleaseHandle()
    {
        // zmq_ctx_term waits for its reaper and returns EINTR when a signal ends the wait (LibZmq.Interrupted): the
        // context, its I/O thread and its reaper would be left, one set per connection a signal happened to land on.
        int result;
        while ((result = LibZmq.ContextTerm(handle)) != 0 && LibZmq.Interrupted)
        {
        }
        return result == 0;
    }
}

/// <summary>
/// A libzmq socket (<c>zmq_socket</c>), closed once disposed. It holds a reference on its context, which
/// <c>zmq_ctx_term</c> needs: terminating a context blocks until each of its sockets is closed, so the context
/// is released only after its last socket, whatever order they are disposed or finalized in.
/// </summary>
internal sealed class ZmqSocketHandle() : SafeHandleZeroOrMinusOneIsInvalid(ownsHandle: true)
{
    private ZmqContextHandle? _context;

    /// <summary>Keeps <paramref name="context"/> from terminating until this socket is closed.</summary>
    public void HoldContext(ZmqContextHandle context)
    {
        bool added = false;
        context.DangerousAddRef(ref added);
        _context = context;
    }

    protected override bool ReleaseHandle()
    {
        bool closed = LibZmq.Close(handle) == 0;
        _context?.DangerousRelease();
        return closed;
    }
}
