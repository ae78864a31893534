using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Kit.Framing;
using IpcBench.Transports.Pipes;
using StreamJsonRpc;

namespace IpcBench.Transports.JsonRpc;

/// <summary>
/// StreamJsonRpc over a .NET named pipe (on Linux and macOS a Unix domain socket underneath): the IPC
/// that Visual Studio, language servers and much .NET tooling run on. Each side attaches a
/// <see cref="StreamJsonRpc.JsonRpc"/> to the pipe; the client invokes <c>Echo(byte[])</c>.
/// <c>jsonrpc</c> uses the MessagePack formatter (length-prefixed messages), <c>jsonrpc-json</c> the
/// System.Text.Json one (HTTP-like headers, the way language servers frame JSON; byte arrays as base64).
/// </summary>
public sealed class JsonRpcTransport : ITransport
{
    private readonly string _formatter;
    private readonly Func<Stream, IJsonRpcMessageHandler> _handler;
    private readonly MessageFraming _framing;

    private JsonRpcTransport(string name, string formatter, Func<Stream, IJsonRpcMessageHandler> handler, MessageFraming framing)
    {
        Name = name;
        _formatter = formatter;
        _handler = handler;
        _framing = framing;
    }

    public static JsonRpcTransport MessagePack() =>
        new("jsonrpc", "MessagePack", stream => new LengthHeaderMessageHandler(stream, stream, new MessagePackFormatter()), MessageFraming.LengthHeader);

    public static JsonRpcTransport Json() =>
        new("jsonrpc-json", "System.Text.Json", stream => new HeaderDelimitedMessageHandler(stream, stream, new SystemTextJsonFormatter()),
            MessageFraming.ContentLengthHeaders);

    /// <summary>The largest message a server takes: the largest payload, base64 in JSON (4/3 of it), with room for the envelope.</summary>
    private static long MaxMessage => 2L * LengthPrefix.DefaultMaxPayload;

    public TransportFamily Family => TransportFamily.Rpc;

    public string Name { get; }

    public string Description => OperatingSystem.IsWindows()
        ? $"StreamJsonRpc over a Windows named pipe, {_formatter} formatter"
        : $"StreamJsonRpc over a .NET named pipe (a Unix domain socket here), {_formatter} formatter";

    public string? UnsupportedReason => null;

    public string? NativeAotUnsupportedReason =>
        "StreamJsonRpc's formatters (MessagePack, System.Text.Json) serialize with reflection and runtime code generation (publish warnings IL2026, IL3050 for JsonRpcTransport)";

    /// <summary>
    /// JSON-RPC has no limit of its own; IpcBench's clients keep to its usual 16 MiB, and its servers refuse a message over
    /// <see cref="MaxMessage"/> (<see cref="MessageSizeGuard"/>). Invocations carry ids, so several may be outstanding on one connection.
    /// </summary>
    public TransportCapabilities Capabilities => new(TransportFeatures.Reliable | TransportFeatures.MessageBoundaries | TransportFeatures.Pipelined, LengthPrefix.DefaultMaxPayload);

    /// <summary>StreamJsonRpc is async through and through: there is no blocking mode to vary.</summary>
    public IReadOnlyList<TransportOption> Options => [];

    public Uri DefaultAddress() => new($"{Name}://{PipeEndpoint.AutoName}");

    public async ValueTask<IServer> StartServerAsync(Uri address, RequestHandler handler, CancellationToken ct = default)
    {
        EndpointOptions.Parse(address, this); // the common options are checked here too
        var listener = await PipeEndpoint.ListenAsync(AddressQuery.WithoutQuery(address), IoMode.Async, ct).ConfigureAwait(false);
        return new JsonRpcServer(listener, stream => _handler(new MessageSizeGuard(stream, _framing, MaxMessage, listener.Address.ToString())),
            new EchoTarget(handler));
    }

    public async ValueTask<IConnection> ConnectAsync(Uri address, CancellationToken ct = default)
    {
        var options = EndpointOptions.Parse(address, this);
        var peer = AddressQuery.WithoutQuery(address);
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(ct);
        timeout.CancelAfter(options.ConnectTimeout);
        Stream pipe;
        try
        {
            pipe = await PipeEndpoint.ConnectAsync(peer, IoMode.Async, timeout.Token).ConfigureAwait(false);
        }
        catch (Exception e) when (TransportErrors.IsConnectionFailure(e) && !ct.IsCancellationRequested)
        {
            throw TransportErrors.ConnectFailed(e, peer, options.ConnectTimeout);
        }
        var rpc = new StreamJsonRpc.JsonRpc(_handler(pipe));
        rpc.StartListening();
        return new JsonRpcConnection(rpc, peer.ToString(), Capabilities.MaxMessageSize, options.RequestTimeout);
    }
}
