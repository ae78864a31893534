using IpcBench.Contract;

namespace IpcBench.Transports;

/// <summary>
/// A way .NET processes used to talk that .NET 5 and later do not have: listed by <c>ipcbench list</c> so that the table
/// of what people used to pick is complete, never measured (there is nothing on this runtime to measure).
/// </summary>
/// <param name="Name">The name <c>list</c> shows and <c>ping</c> refuses.</param>
/// <param name="WhatItWas">One line: what it was.</param>
/// <param name="Why">Why .NET 5 and later do not have it.</param>
/// <param name="Instead">What took its place, naming IpcBench's transports for it.</param>
public sealed record RetiredTransport(string Name, TransportFamily Family, string WhatItWas, string Why, string Instead)
{
    /// <summary>The one line <c>list</c> prints and <c>ping</c>/<c>serve</c> answer with.</summary>
    public string Explanation => $"{WhatItWas} -- not on .NET 5 and later: {Why}; instead: {Instead}";

    public static IReadOnlyList<RetiredTransport> All { get; } =
    [
        new("remoting", TransportFamily.Rpc,
            ".NET Remoting (System.Runtime.Remoting): calls on MarshalByRefObject proxies over TCP, HTTP or IPC channels",
            "never ported to .NET Core, its BinaryFormatter serialization and transparent proxies judged unsafe and unportable",
            "gRPC or StreamJsonRpc (grpc, grpc-uds, jsonrpc)"),
        new("msmq", TransportFamily.Messaging,
            "MSMQ (System.Messaging): Windows' Message Queuing service",
            "System.Messaging was never ported to .NET Core, and MSMQ itself is a Windows component",
            "a broker such as RabbitMQ (amqp, amqp-confirm)"),
        new("wm-copydata", TransportFamily.Local,
            "WM_COPYDATA: a Win32 window message carrying a buffer from one desktop window to another",
            "never a .NET API: a Windows desktop app can still P/Invoke SendMessage, but it needs a window and a message loop on each side, "
                + "which a service, a container or another OS has not",
            "named pipes or shared memory (pipe, mmf)"),
        new("lrpc", TransportFamily.Rpc,
            "Win32 LRPC (ncalrpc): Windows' local RPC runtime (rpcrt4), reached from .NET through P/Invoke wrappers",
            "no .NET API: third-party wrappers over rpcrt4, Windows only",
            "gRPC over a named pipe or a Unix domain socket (grpc-pipe, grpc-uds)"),
    ];

    public static RetiredTransport? Find(string name) =>
        All.FirstOrDefault(r => string.Equals(r.Name, name, StringComparison.OrdinalIgnoreCase));
}
