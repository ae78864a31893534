using IpcBench.Contract;
using IpcBench.Kit;
using IpcBench.Kit.Files;
using Tmds.DBus.Protocol;

namespace IpcBench.Transports.DBus;

/// <summary>
/// The server: its private bus, and a connection to it that owns <see cref="EchoObject.BusName"/> and answers calls
/// on the echo object. Stopping it disconnects, stops the bus (which removes its socket) and removes the directory.
/// </summary>
internal sealed class DBusResponder : IServer
{
    private readonly PrivateBus _bus;
    private readonly DBusConnection _connection;
    private readonly SocketPathClaim _claim;

    private DBusResponder(PrivateBus bus, DBusConnection connection, SocketPathClaim claim, Uri address)
    {
        _bus = bus;
        _connection = connection;
        _claim = claim;
        Address = address;
        Lost = LostAsync();
    }

    public Uri Address { get; }

    /// <summary>The bus exiting, or this server's connection to it ending, is the server gone.</summary>
    public Task<string> Lost { get; }

    public static async Task<DBusResponder> StartAsync(SocketPathClaim claim, Uri address, RequestHandler handler, TimeSpan timeout, CancellationToken ct)
    {
        var bus = await PrivateBus.StartAsync(claim.Path, timeout, ct).ConfigureAwait(false);
        var connection = new DBusConnection(new DBusConnectionOptions(PrivateBus.Address(claim.Path))
        {
            AutoConnect = false,
            // A handler's exception would otherwise end the connection; the library answers that one call with an error.
            OnException = e => e.DisconnectConnection = e.Source != DBusConnection.ExceptionSource.MethodHandler,
        });
        try
        {
            await connection.ConnectAsync().AsTask().WaitAsync(timeout, ct).ConfigureAwait(false);
            connection.AddMethodHandler(new EchoObject(handler));
            // None: fail rather than take the name from another owner (the bus is our own; this is a check, not a race).
            if (!await connection.TryRequestNameAsync(EchoObject.BusName, RequestNameOptions.None).WaitAsync(timeout, ct).ConfigureAwait(false))
            {
                throw new TransportException($"{EchoObject.BusName} is already owned on the bus at {claim.Path}");
            }
            return new DBusResponder(bus, connection, claim, address);
        }
        catch (Exception e)
        {
            connection.Dispose();
            await bus.DisposeAsync().ConfigureAwait(false);
            throw e is DBusExceptionBase or TimeoutException ? new TransportException($"could not serve on the private bus at {claim.Path}: {e.Message}", e) : e;
        }
    }

    private async Task<string> LostAsync()
    {
        var bus = _bus.ExitAsync;
        var connection = _connection.DisconnectedAsync();
        if (await Task.WhenAny(bus, connection).ConfigureAwait(false) == bus)
        {
            return $"the private {PrivateBus.Daemon} exited with code {await bus.ConfigureAwait(false)}: {_bus.RecentErrors}".TrimEnd(' ', ':');
        }
        return $"the connection to the private bus ended: {(await connection.ConfigureAwait(false))?.Message ?? "closed"}";
    }

    public async ValueTask DisposeAsync()
    {
        _connection.Dispose();
        await _bus.DisposeAsync().ConfigureAwait(false);
        _claim.Release();
    }
}
