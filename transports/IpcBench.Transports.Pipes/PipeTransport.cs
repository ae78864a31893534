using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Kit.Streams;

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
    public override TransportFamily Family => TransportFamily.Local;

    public override string Name => "pipe";

    public override string Description => OperatingSystem.IsWindows()
        ? "Windows named pipe (\\\\.\\pipe\\NAME), byte mode, current user only"
        : ".NET named pipe: on this OS a Unix domain socket ($TMPDIR/CoreFxPipe_NAME), byte mode only, current user only";

    public override TransportCapabilities Capabilities => base.Capabilities with { Features = TransportFeatures.Reliable };

    public override Uri DefaultAddress() => new($"pipe://{PipeEndpoint.AutoName}");

    protected override async ValueTask<IStreamListener> ListenAsync(Uri address, EndpointOptions options, CancellationToken ct) =>
        await PipeEndpoint.ListenAsync(address, options.Io, ct).ConfigureAwait(false);

    protected override async ValueTask<Stream> ConnectStreamAsync(Uri address, EndpointOptions options, CancellationToken ct) =>
        await PipeEndpoint.ConnectAsync(address, options.Io, ct, options.ConnectTimeout).ConfigureAwait(false);
}
