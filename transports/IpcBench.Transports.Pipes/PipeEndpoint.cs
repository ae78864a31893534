using System.IO.Pipes;
using IpcBench.Contract;
using IpcBench.Contract.Options;
using IpcBench.Kit.Files;
using IpcBench.Kit.Streams;

namespace IpcBench.Transports.Pipes;

/// <summary>
/// Named-pipe addresses (<c>SCHEME://NAME</c>, <c>SCHEME://auto</c> for a fresh name), listening and
/// connecting: what every transport over a .NET named pipe shares (<c>pipe</c>, <c>jsonrpc</c>, <c>grpc-pipe</c>). Only
/// the current user may connect (<see cref="PipeOptions.CurrentUserOnly"/>).
/// </summary>
public static class PipeEndpoint
{
    /// <summary>The name a server binds when told <c>SCHEME://auto</c>: a fresh one, <c>ipcbench-PID-RANDOM</c>.</summary>
    public const string AutoName = "auto";

    /// <summary>Claims the pipe name of <paramref name="address"/> and listens on it.</summary>
    public static async ValueTask<IStreamListener> ListenAsync(Uri address, IoMode io, CancellationToken ct)
    {
        string name = await ClaimNameAsync(address, ct).ConfigureAwait(false);
        return new PipeListener(name, new Uri($"{address.Scheme}://{name}"), io);
    }

    /// <summary>
    /// The name a server at <paramref name="address"/> may listen on: <c>auto</c> becomes a fresh one, and a
    /// stale one a killed server left is removed first (one a live server holds is refused).
    /// </summary>
    public static async ValueTask<string> ClaimNameAsync(Uri address, CancellationToken ct)
    {
        string name = Name(address);
        if (name == AutoName)
        {
            StalePipe.RemoveLeftovers();
            name = "ipcbench-" + PrivateDirectory.UniqueName();
        }
        await StalePipe.RemoveIfStaleAsync(name, ct).ConfigureAwait(false);
        return name;
    }

    /// <summary>Connects to the pipe of <paramref name="address"/>; <paramref name="ct"/> is the connect timeout.</summary>
    /// <param name="blockingTimeout">
    /// The bound of a blocking connect (<see cref="IoMode.Sync"/>). It needs its own: on Unix a refused connect (a
    /// killed server's socket file left behind) is retried inside Connect until its timeout, and closing the stream
    /// does not end that loop.
    /// </param>
    public static async ValueTask<NamedPipeClientStream> ConnectAsync(Uri address, IoMode io, CancellationToken ct,
        TimeSpan blockingTimeout = default)
    {
        string name = ServedName(address);
        var client = new NamedPipeClientStream(".", name, PipeDirection.InOut, Options(io));
        try
        {
            if (io == IoMode.Async)
            {
                await client.ConnectAsync(ct).ConfigureAwait(false);
            }
            else
            {
                // Blocking connect keeps the pipe's socket blocking on Unix (see BlockingSockets in the
                // sockets transports); ct ends a wait for a server's accept by closing the stream.
                if (blockingTimeout <= TimeSpan.Zero)
                {
                    throw new ArgumentOutOfRangeException(nameof(blockingTimeout), "a blocking connect needs a timeout of its own");
                }
                using var abort = ct.Register(client.Dispose);
                await Task.Run(() => client.Connect(blockingTimeout), CancellationToken.None).ConfigureAwait(false);
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

    internal static PipeOptions Options(IoMode io) =>
        PipeOptions.CurrentUserOnly | (io == IoMode.Async ? PipeOptions.Asynchronous : PipeOptions.None);

    /// <summary>
    /// The pipe name of <paramref name="address"/>, for a client about to connect; throws when on Unix no server has made it:
    /// with no socket file, .NET would retry the connect until its timeout.
    /// </summary>
    public static string ServedName(Uri address)
    {
        string name = Name(address);
        if (StalePipe.SocketPath(name) is { } path && !File.Exists(path))
        {
            throw new TransportException($"could not connect to {AddressQuery.WithoutQuery(address)}: no such pipe ({path} does not exist)");
        }
        return name;
    }

    /// <summary>The pipe name of <c>SCHEME://NAME</c>; names are case-insensitive (a URI host is lower-cased).</summary>
    private static string Name(Uri address)
    {
        string name = address.Host;
        if (name.Length == 0 || address.AbsolutePath.Length > 1)
        {
            throw new ArgumentException($"{address} is not a pipe address: write {address.Scheme}://NAME");
        }
        return name;
    }
}
