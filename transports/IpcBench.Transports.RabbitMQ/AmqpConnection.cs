using System.Globalization;
using System.Runtime.CompilerServices;
using IpcBench.Contract;
using IpcBench.Kit;
using RabbitMQ.Client;
using RabbitMQ.Client.Events;
using IConnection = IpcBench.Contract.IConnection;
using RabbitConnection = RabbitMQ.Client.IConnection;

namespace IpcBench.Transports.RabbitMQ;

/// <summary>
/// The client: consumes <c>amq.rabbitmq.reply-to</c> (no-ack, on the channel it publishes on, before
/// it publishes, as the broker requires), publishes each request with a fresh correlation id and
/// waits for the reply that carries it. A lost broker fails the waiting request at once; a request
/// that times out leaves the connection unusable (its late reply could still come).
/// </summary>
internal sealed class AmqpConnection : IProbedConnection
{
    private const string DirectReplyTo = "amq.rabbitmq.reply-to";
    private const int MaxMessage = Kit.Framing.LengthPrefix.DefaultMaxPayload; // as the transport's capabilities say

    private readonly RabbitConnection _connection;
    private readonly IChannel _channel;
    private readonly string _queue;
    private readonly string _peer;
    private TimeSpan _timeout;
    private readonly BasicProperties _properties;
    private readonly ReplySignal _signal = new();
    private readonly RequestDeadline _deadline;
    private readonly string[] _ids = new string[4096]; // correlation ids, formatted once
    private Memory<byte> _reply;
    private string? _expected;
    private long _sequence;
    private string? _broken;

    private AmqpConnection(RabbitConnection connection, IChannel channel, string queue, string peer, TimeSpan timeout, bool persistent)
    {
        _connection = connection;
        _channel = channel;
        _queue = queue;
        _peer = peer;
        _timeout = timeout;
        _properties = new BasicProperties
        {
            ReplyTo = DirectReplyTo,
            DeliveryMode = persistent ? DeliveryModes.Persistent : DeliveryModes.Transient,
        };
        _deadline = new RequestDeadline(timeout, () => _signal.Fail(TransportErrors.NoReply(_peer, _timeout)));
    }

    public static async Task<AmqpConnection> OpenAsync(RabbitConnection connection, string queue, string peer,
        TimeSpan timeout, TimeSpan connectTimeout, bool confirm, CancellationToken ct)
    {
        var channel = await connection.CreateChannelAsync(new CreateChannelOptions(confirm, confirm), ct).ConfigureAwait(false);
        var client = new AmqpConnection(connection, channel, queue, peer, timeout, persistent: confirm);
        var consumer = new AsyncEventingBasicConsumer(channel);
        consumer.ReceivedAsync += client.OnReplyAsync;
        channel.ChannelShutdownAsync += client.OnShutdownAsync;
        channel.BasicReturnAsync += client.OnReturnAsync;
        await channel.BasicConsumeAsync(DirectReplyTo, autoAck: true, consumer, ct).ConfigureAwait(false);
        // A missing queue comes back at once (mandatory publish), a silent server times out: both here.
        await ConnectProbe.ProbeAsync(client, new Uri($"{peer}?queue={queue}"), connectTimeout, timeout, ct).ConfigureAwait(false);
        return client;
    }

    public async ValueTask<int> RequestAsync(ReadOnlyMemory<byte> request, Memory<byte> reply, CancellationToken ct = default)
    {
        if (_broken is not null)
        {
            throw new TransportException($"{_peer}: {_broken}");
        }
        FrameTooLargeException.ThrowIfTooLarge(request.Length, MaxMessage);
        string id = Id(++_sequence);
        _reply = reply;
        _expected = id;
        _properties.CorrelationId = id;
        var pending = _signal.Arm();
        _deadline.Arm();
        try
        {
            // mandatory: a request that no queue takes comes back (BasicReturn) instead of vanishing.
            await _channel.BasicPublishAsync("", _queue, mandatory: true, _properties, request, ct).ConfigureAwait(false);
            return await pending.ConfigureAwait(false);
        }
        catch (Exception e) when (e is not TransportException && !ct.IsCancellationRequested)
        {
            _signal.Fail(e);
            throw new TransportException($"request to {_peer} failed: {e.Message}", e);
        }
        catch (TransportException e)
        {
            _broken ??= e is TransportTimeoutException ? "the connection is unusable after a timeout; connect again" : e.Message;
            throw;
        }
        finally
        {
            _deadline.Disarm();
        }
    }

    public TimeSpan ReplyTimeout
    {
        set
        {
            _timeout = value;
            _deadline.Timeout = value;
        }
    }

    private string Id(long sequence)
    {
        int slot = (int)(sequence % _ids.Length);
        return _ids[slot] ??= slot.ToString(CultureInfo.InvariantCulture);
    }

    private Task OnReplyAsync(object sender, BasicDeliverEventArgs delivery)
    {
        if (delivery.BasicProperties.CorrelationId != _expected)
        {
            return Task.CompletedTask; // not the reply we wait for
        }
        if (delivery.Body.Length > _reply.Length)
        {
            _signal.Fail(new FrameTooLargeException(delivery.Body.Length, _reply.Length));
            return Task.CompletedTask;
        }
        delivery.Body.Span.CopyTo(_reply.Span);
        _signal.Complete(delivery.Body.Length);
        return Task.CompletedTask;
    }

    private Task OnReturnAsync(object sender, BasicReturnEventArgs returned)
    {
        _signal.Fail(new TransportException($"the broker returned the request: {returned.ReplyText} (is the server still running?)"));
        return Task.CompletedTask;
    }

    private Task OnShutdownAsync(object sender, ShutdownEventArgs e)
    {
        _signal.Fail(new TransportException($"lost the broker connection to {_peer}: {e.ReplyText}"));
        return Task.CompletedTask;
    }

    public async ValueTask DisposeAsync()
    {
        _deadline.Dispose();
        await Broker.CloseAsync(_channel, _connection).ConfigureAwait(false); // a broker already gone is no news to a closing client
    }
}
