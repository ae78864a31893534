using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Transports.Akka;
using IpcBench.Transports.Grpc;
using IpcBench.Transports.DBus;
using IpcBench.Transports.Http;
using IpcBench.Transports.InProcess;
using IpcBench.Transports.JsonRpc;
using IpcBench.Transports.Nats;
using IpcBench.Transports.Orleans;
using IpcBench.Transports.Pipes;
using IpcBench.Transports.RabbitMQ;
using IpcBench.Transports.Redis;
using IpcBench.Transports.SharedMemory;
using IpcBench.Transports.SignalR;
using IpcBench.Transports.Sockets;
using IpcBench.Transports.Thrift;
using IpcBench.Transports.Wcf;
using IpcBench.Transports.ZeroMQ;

namespace IpcBench.Transports;

/// <summary>
/// Every transport IpcBench knows, in one explicit list: adding a transport is one line here (and a
/// project reference here). The CLI, the conformance tests and the benchmark suite all read this list.
/// </summary>
public static class TransportRegistry
{
    public static IReadOnlyList<ITransport> All { get; } =
    [
        InProcessTransport.Direct,
        InProcessTransport.Copying,
        TcpTransport.NoDelay,
        TcpTransport.Nagle,
        TcpTransport.Tls,
        new UdpTransport(),
        new UdsTransport(),
        new PipeTransport(),
        new MmfTransport(),
        new NetMqTransport(),
        new LibZmqTransport(),
        AmqpTransport.Transient,
        AmqpTransport.Confirmed,
        NatsTransport.Core,
        RedisTransport.Tcp,
        RedisTransport.UnixSocket,
        DBusTransport.Instance,
        HttpTransport.Http1,
        HttpTransport.Http2,
        GrpcTransport.Tcp,
        GrpcTransport.UnixSocket,
        GrpcTransport.NamedPipe,
        GrpcTransport.Stream,
        GrpcTransport.CodeFirst,
        GrpcTransport.Tls,
        SignalRTransport.MessagePack,
        SignalRTransport.Json,
        JsonRpcTransport.MessagePack(),
        JsonRpcTransport.Json(),
        ThriftTransport.Socket,
        ThriftTransport.NamedPipe,
        AkkaTransport.Remote,
        OrleansTransport.LocalhostClustering,
        new WcfTransport(),
    ];

    public static IEnumerable<string> Names => All.Select(t => t.Name);

    /// <summary>
    /// Each option some transport declares with a shorthand, once: what <c>--io</c>, <c>--wait</c> and
    /// <c>--timeout</c> on the command line and <c>IPCBENCH_IO</c> ... in the suite stand for.
    /// </summary>
    public static IReadOnlyList<TransportOption> Shorthands { get; } =
        [.. All.SelectMany(OptionValues.Of).Where(o => o.Shorthand).DistinctBy(o => o.Name)];

    /// <exception cref="ArgumentException">No transport has that name; the message lists the known ones.</exception>
    public static ITransport Get(string name) =>
        All.FirstOrDefault(t => string.Equals(t.Name, name, StringComparison.OrdinalIgnoreCase))
        ?? throw new ArgumentException($"unknown transport '{name}'; known: {string.Join(", ", Names)}");
}
