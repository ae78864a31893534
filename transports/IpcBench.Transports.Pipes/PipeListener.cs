using System.IO.Pipes;
using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Kit.Streams;

namespace IpcBench.Transports.Pipes;

/// <summary>
/// Accepts clients on a pipe name: one server stream instance waits for the next client, and a new
/// instance takes its place once it is connected. The first instance claims the name, so the name
/// is taken as soon as the listener exists.
/// </summary>
internal sealed class PipeListener : IStreamListener
{
    private readonly string _name;
    private readonly IoMode _io;
    private NamedPipeServerStream _waiting;

    public PipeListener(string name, Uri address, IoMode io)
    {
        _name = name;
        _io = io;
        Address = address;
        try
        {
            _waiting = NewInstance();
            if (!OperatingSystem.IsWindows() && StalePipe.SocketPath(name) is { } path)
            {
                // .NET leaves the socket file as the umask makes it (0755 under the usual 022) when the pipe is
                // CurrentUserOnly, which checks each client's user on accept; the file itself is the owner's only too.
                File.SetUnixFileMode(path, UnixFileMode.UserRead | UnixFileMode.UserWrite);
            }
        }
        catch (IOException e)
        {
            throw new TransportException($"cannot listen on pipe {name}: {e.Message}", e);
        }
    }

    public Uri Address { get; }

    private NamedPipeServerStream NewInstance() => new(_name, PipeDirection.InOut,
        NamedPipeServerStream.MaxAllowedServerInstances, PipeTransmissionMode.Byte, PipeEndpoint.Options(_io));

    public async ValueTask<Stream> AcceptAsync(CancellationToken ct)
    {
        var instance = _waiting;
        if (_io == IoMode.Async)
        {
            await instance.WaitForConnectionAsync(ct).ConfigureAwait(false);
        }
        else
        {
            await Task.Run(instance.WaitForConnection, ct).WaitAsync(ct).ConfigureAwait(false);
        }
        _waiting = NewInstance();
        return instance;
    }

    public ValueTask DisposeAsync()
    {
        _waiting.Dispose();
        if (!OperatingSystem.IsWindows() && StalePipe.SocketPath(_name) is { } path)
        {
            // .NET removes the socket file with the last instance of the name, connected ones included: a connection
            // not yet closed when the process exits would leave it behind. Connections go on without the file.
            File.Delete(path);
        }
        return ValueTask.CompletedTask;
    }
}
