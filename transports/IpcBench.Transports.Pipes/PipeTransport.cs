using System.IO.Pipes;
using IpcBench.Core;
using IpcBench.Core.Streams;

namespace IpcBench.Transports.Pipes;

/// <summary>
/// .NET named pipes (<see cref="NamedPipeServerStream"/> / <see cref="NamedPipeClientStream"/>) with
/// the length-prefix framing. On Windows a real named pipe (used in byte mode, like everywhere); on
/// Linux and macOS .NET implements them as Unix domain sockets at <c>$TMPDIR/CoreFxPipe_NAME</c>, with
/// no message mode, so expect <c>uds</c> figures plus the PipeStream layer. Only the current user
/// may connect (<see cref="PipeOptions.CurrentUserOnly"/>).
/// </summary>
public sealed class PipeTransport : StreamTransport
{
    public override string Name => "pipe";

    public override string Description => OperatingSystem.IsWindows()
        ? "Windows named pipe (\\\\.\\pipe\\NAME), byte mode, current user only"
        : ".NET named pipe: on this OS a Unix domain socket ($TMPDIR/CoreFxPipe_NAME), byte mode only, current user only";

    public override TransportCapabilities Capabilities => base.Capabilities with { Features = TransportFeatures.Reliable };

    /// <summary>The name a server binds when told <c>pipe://auto</c>: a fresh one, <c>ipcbench-PID-RANDOM</c>.</summary>
    public const string AutoName = "auto";

    public override Uri DefaultAddress() => new($"pipe://{AutoName}");

    protected override async ValueTask<IStreamListener> ListenAsync(Uri address, EndpointOptions options, CancellationToken ct)
    {
        string name = PipeName(address);
        if (name == AutoName)
        {
            StalePipe.RemoveLeftovers();
            name = "ipcbench-" + PrivateDirectory.UniqueName();
        }
        await StalePipe.RemoveIfStaleAsync(name, ct).ConfigureAwait(false);
        return new PipeListener(name, new Uri($"pipe://{name}"), options.Io);
    }

    protected override async ValueTask<Stream> ConnectStreamAsync(Uri address, EndpointOptions options, CancellationToken ct)
    {
        string name = PipeName(address);
        if (StalePipe.SocketPath(name) is { } path && !File.Exists(path))
        {
            // Unix: no socket file means no server; .NET would otherwise retry until the timeout.
            throw new TransportException($"could not connect to {EndpointOptions.WithoutQuery(address)}: no such pipe ({path} does not exist)");
        }
        var client = new NamedPipeClientStream(".", name, PipeDirection.InOut, PipeOptionsFor(options.Io));
        try
        {
            if (options.Io == IoMode.Async)
            {
                await client.ConnectAsync(ct).ConfigureAwait(false);
            }
            else
            {
                // Blocking connect keeps the pipe's socket blocking on Unix (see BlockingSockets in the
                // sockets transports); ct ends the wait by closing the stream.
                using var abort = ct.Register(client.Dispose);
                await Task.Run(() => client.Connect(Timeout.Infinite), CancellationToken.None).ConfigureAwait(false);
            }
            return client;
        }
        catch (Exception e)
        {
            await client.DisposeAsync().ConfigureAwait(false);
            if (ct.IsCancellationRequested && e is not OperationCanceledException)
            {
                throw new OperationCanceledException(ct);
            }
            throw;
        }
    }

    internal static PipeOptions PipeOptionsFor(IoMode io) =>
        PipeOptions.CurrentUserOnly | (io == IoMode.Async ? PipeOptions.Asynchronous : PipeOptions.None);

    /// <summary>The pipe name of <c>pipe://NAME</c>; names are case-insensitive (a URI host is lower-cased).</summary>
    internal static string PipeName(Uri address)
    {
        string name = address.Host;
        if (name.Length == 0 || address.AbsolutePath.Length > 1)
        {
            throw new ArgumentException($"{address} is not a pipe address: write pipe://NAME");
        }
        return name;
    }
}
