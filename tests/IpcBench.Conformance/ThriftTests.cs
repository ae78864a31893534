namespace IpcBench.Conformance;

/// <summary>Thrift's named-pipe server, which IpcBench runs as Thrift ships it, with one instance kept to hold its name.</summary>
public class ThriftTests
{
    /// <summary>
    /// Without the instance ThriftTransport keeps, a connection that ended before Thrift's accept loop had made its next
    /// instance closed the name's listener and reset the next client's connection, waiting in its backlog: two runs in
    /// three of this one failed so. Run as ping runs it, client and server on one CPU, where the accept loop waits its turn.
    /// </summary>
    [Fact]
    public async Task The_pipe_server_takes_thousands_of_connections_back_to_back()
    {
        await RunsHere.RequireAsync("thrift-pipe");
        using var ping = PingProcess.Start("--transport", "thrift-pipe", "--scenario", "connect", "--count", "3000", "--no-results");
        await ping.SucceedsAsync(TimeSpan.FromMinutes(2));
    }
}
