using System.ServiceModel;
using System.ServiceModel.Channels;
using IpcBench.Contract;
using IpcBench.Contract.Options;
using IConnection = IpcBench.Contract.IConnection;

namespace IpcBench.Transports.Wcf;

/// <summary>
/// A ChannelFactory&lt;IEcho&gt; and one channel, opened once and kept: each request is one synchronous
/// <c>Echo(byte[])</c> call. WCF hands arguments and results over as arrays, so the request is copied into
/// one and the reply arrives in another: these allocations are WCF's, and the benchmark reports them.
/// A call that fails or times out faults the channel (WCF's rule), so the connection says so from then on.
/// </summary>
internal sealed class WcfConnection : IConnection
{
    private readonly ChannelFactory<IEcho> _factory;
    private readonly IEcho _channel;
    private readonly string _peer;
    private readonly int _maxMessage;
    private readonly TimeSpan _timeout;

    private WcfConnection(ChannelFactory<IEcho> factory, IEcho channel, string peer, int maxMessage, TimeSpan timeout)
    {
        _factory = factory;
        _channel = channel;
        _peer = peer;
        _maxMessage = maxMessage;
        _timeout = timeout;
    }

    /// <summary>Connects and completes NetTcp's preamble within the connect timeout.</summary>
    /// <param name="connectionBuffer">TcpTransportBindingElement.ConnectionBufferSize: the client socket's buffers.</param>
    public static WcfConnection Open(Uri peer, Uri netTcp, int maxMessage, EndpointOptions options, int connectionBuffer)
    {
        var factory = new ChannelFactory<IEcho>(Binding(maxMessage, options, connectionBuffer), new EndpointAddress(netTcp));
        try
        {
            var channel = factory.CreateChannel();
            ((IClientChannel)channel).Open(options.ConnectTimeout);
            return new WcfConnection(factory, channel, peer.ToString(), maxMessage, options.RequestTimeout);
        }
        catch (Exception e) when (e is CommunicationException or TimeoutException)
        {
            factory.Abort();
            throw e is TimeoutException
                ? new TransportTimeoutException($"could not connect to {peer} within {options.ConnectTimeout.TotalMilliseconds:0} ms")
                : new TransportException($"could not connect to {peer}: {e.Message}", e);
        }
    }

    /// <summary>
    /// NetTcpBinding without security, its size limits raised to the transport's maximum (base64 in binary XML:
    /// twice, to be safe), and its transport's connection buffer as asked (NetTcpBinding does not expose it).
    /// </summary>
    private static CustomBinding Binding(int maxMessage, EndpointOptions options, int connectionBuffer)
    {
        var binding = new NetTcpBinding(SecurityMode.None)
        {
            MaxReceivedMessageSize = 2L * maxMessage,
            MaxBufferSize = 2 * maxMessage,
        };
        binding.ReaderQuotas.MaxArrayLength = maxMessage;
        var elements = binding.CreateBindingElements();
        elements.Find<TcpTransportBindingElement>().ConnectionBufferSize = connectionBuffer;
        // Timeouts belong to the binding, not its elements: set on the one that is used.
        return new CustomBinding(elements)
        {
            OpenTimeout = options.ConnectTimeout,
            SendTimeout = options.RequestTimeout, // a request/reply call's whole time
            ReceiveTimeout = options.RequestTimeout,
            CloseTimeout = options.ConnectTimeout,
        };
    }

    public ValueTask<int> RequestAsync(ReadOnlyMemory<byte> request, Memory<byte> reply, CancellationToken ct = default)
    {
        FrameTooLargeException.ThrowIfTooLarge(request.Length, _maxMessage);
        byte[] answer;
        try
        {
            answer = _channel.Echo(request.ToArray());
        }
        catch (TimeoutException)
        {
            throw TransportErrors.NoReply(_peer, _timeout);
        }
        catch (CommunicationException e)
        {
            throw new TransportException($"call to {_peer} failed: {e.Message}", e);
        }
        return ValueTask.FromResult(FrameTooLargeException.CopyReply(answer, reply.Span));
    }

    public ValueTask DisposeAsync()
    {
        try
        {
            ((IClientChannel)_channel).Close(TimeSpan.FromSeconds(2));
            _factory.Close(TimeSpan.FromSeconds(2));
        }
        catch (Exception e) when (e is CommunicationException or TimeoutException)
        {
            ((IClientChannel)_channel).Abort(); // a faulted channel cannot close cleanly
            _factory.Abort();
        }
        return ValueTask.CompletedTask;
    }
}
