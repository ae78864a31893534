using System;
using System.Net;
using System.Net.Sockets;
using System.Collections.Concurrent;
using System.Reflection;
using System.ServiceModel;
using System.ServiceModel.Channels;
using System.Threading;
using System.Threading.Tasks;

namespace IpcBench.Transports.Wcf.Host
{
    internal sealed partial class SleeplessTcpTransport
    {
        /// <summary>
        /// Accepts connections on a socket of its own and builds Mono's own server channel on each, as Mono's listener
        /// does (<c>new TcpDuplexSessionChannel (listener, info, client)</c>, reached by reflection), opened before the
        /// dispatcher sees it (<see cref="Channel.TryOpen"/>). Mono's <c>TcpChannelListener.AcceptTcpClient</c> (Mono 6.8)
        /// has two races that leave a client's connect unanswered until it times out: a connection that arrives between
        /// its look at its queue and its wait is not noticed until the next one comes (a lost wake-up), and one taken
        /// while an earlier channel is closing is dropped (its check of the earlier channel's endpoint throws on the closed
        /// socket). Under load about one run in ten of a hundred connects met one (docs/transports.md, "WCF on Linux").
        /// Each connection's preamble is read as it comes, beside the others', so that one that sends nothing holds up no one.
        /// </summary>
        private sealed class Listener : ChannelListenerBase<IDuplexSessionChannel>
        {
            private const BindingFlags Private = BindingFlags.Instance | BindingFlags.NonPublic;
            private const string ServerChannel = "System.ServiceModel.Channels.NetTcp.TcpDuplexSessionChannel";

            private readonly IChannelListener<IDuplexSessionChannel> _mono;
            private readonly Func<TcpClient, IDuplexSessionChannel> _monoChannel;
            private readonly SemaphoreSlim _slots = new SemaphoreSlim(Unclaimed); // a connection's, from its accept until the dispatcher takes its channel
            private readonly SemaphoreSlim _ready = new SemaphoreSlim(0); // one for each channel in _opened
            private readonly ConcurrentQueue<Channel> _opened = new ConcurrentQueue<Channel>();
            private readonly ConcurrentDictionary<Channel, bool> _opening = new ConcurrentDictionary<Channel, bool>();
            private readonly CancellationTokenSource _closing = new CancellationTokenSource();
            private TcpListener _socket;

            /// <summary>
            /// How many connections may be reading their preamble or waiting, open, for the dispatcher: each reads on a
            /// thread of its own (Mono's channel reads it synchronously), so this bounds the threads a crowd of silent
            /// connections holds. Beyond it, connections wait in the kernel's backlog.
            /// </summary>
            private const int Unclaimed = 16;

            /// <summary>A client sends its preamble as it connects; this bounds one that does not (Mono's own read waits for ever).</summary>
            private static readonly TimeSpan PreambleTimeout = TimeSpan.FromSeconds(10);

            /// <param name="mono">Mono's listener, never opened: the source of the channels' settings (its TcpChannelInfo).</param>
            public Listener(IChannelListener<IDuplexSessionChannel> mono, IDefaultCommunicationTimeouts timeouts)
                : base(timeouts)
            {
                _mono = mono;
                object info = mono.GetType().GetField("info", Private)?.GetValue(mono)
                    ?? throw new MissingFieldException(mono.GetType().FullName, "info (this Mono's NetTcp listener is not the one SleeplessTcpTransport knows)");
                var channel = mono.GetType().Assembly.GetType(ServerChannel, throwOnError: true);
                var create = channel.GetConstructor(Private | BindingFlags.Public, null, new[] { typeof(ChannelListenerBase), info.GetType(), typeof(TcpClient) }, null)
                    ?? throw new MissingMethodException(ServerChannel, ".ctor (ChannelListenerBase, TcpChannelInfo, TcpClient)");
                _monoChannel = client => (IDuplexSessionChannel)create.Invoke(new[] { this, info, client });
            }

            public override Uri Uri => _mono.Uri;

            public override T GetProperty<T>() => _mono.GetProperty<T>() ?? base.GetProperty<T>();

            protected override void OnOpen(TimeSpan timeout)
            {
                // As Mono's listener binds: 'localhost' is every address, an IP itself, a name its first address.
                string host = Uri.DnsSafeHost;
                var address = string.Equals(host, "localhost", StringComparison.OrdinalIgnoreCase) ? IPAddress.Any
                    : IPAddress.TryParse(host, out var ip) ? ip : Dns.GetHostAddresses(host)[0];
                _socket = new TcpListener(address, Uri.Port);
                _socket.Start();
                Task.Run(AcceptAsync);
            }

            /// <summary>
            /// Accepts while the listener is open, each connection's preamble read on a thread of its own, so that one that
            /// sends nothing (a port scan, a health check's probe) holds up no client behind it: Mono's dispatcher opened
            /// them one at a time, and such a connection held every later client until its read timed out.
            /// </summary>
            private async Task AcceptAsync()
            {
                while (!_closing.IsCancellationRequested)
                {
                    TcpClient client;
                    try
                    {
                        await _slots.WaitAsync(_closing.Token).ConfigureAwait(false);
                        client = await _socket.AcceptTcpClientAsync().ConfigureAwait(false);
                    }
                    catch (Exception) when (_closing.IsCancellationRequested)
                    {
                        return; // the socket was stopped under the accept
                    }
                    catch (SocketException e)
                    {
                        _slots.Release(); // a connection reset before it was taken, or no file descriptor left: the next one, a little later
                        Console.Error.WriteLine($"wcf host: an accept failed: {e.Message}");
                        await Task.Delay(100).ConfigureAwait(false);
                        continue;
                    }
                    _ = Task.Factory.StartNew(() => OpenOrClose(client), CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default);
                }
            }

            /// <summary>Reads a connection's preamble; queues its channel for the dispatcher, or closes a connection that sent none or garbage.</summary>
            private void OpenOrClose(TcpClient client)
            {
                Channel channel;
                try
                {
                    channel = new Channel(_monoChannel(client));
                }
                catch (Exception e) when (!(e is OutOfMemoryException))
                {
                    client.Close();
                    _slots.Release();
                    Console.Error.WriteLine($"wcf host: no channel for a connection: {e.GetBaseException().Message}");
                    return;
                }
                _opening[channel] = true;
                bool opened = channel.TryOpen(client, PreambleTimeout);
                _opening.TryRemove(channel, out _);
                if (!opened)
                {
                    _slots.Release();
                    return;
                }
                _opened.Enqueue(channel);
                _ready.Release();
                if (_closing.IsCancellationRequested)
                {
                    AbortUnclaimed(); // the listener closed while it read: no one will take it
                }
            }

            /// <summary>The next connection that opened a NetTcp session, as Mono's channel wrapped and open; null once closing, or when none came within the timeout.</summary>
            protected override IDuplexSessionChannel OnAcceptChannel(TimeSpan timeout)
            {
                if (!Wait(_ready, timeout) || !_opened.TryDequeue(out var channel))
                {
                    return null;
                }
                _slots.Release();
                return channel;
            }

            protected override bool OnWaitForChannel(TimeSpan timeout)
            {
                if (!Wait(_ready, timeout))
                {
                    return false;
                }
                _ready.Release(); // waited, not taken
                return true;
            }

            /// <summary>Waits within the timeout; false once closing.</summary>
            private bool Wait(SemaphoreSlim semaphore, TimeSpan timeout)
            {
                try
                {
                    return semaphore.Wait(Bounded(timeout), _closing.Token);
                }
                catch (OperationCanceledException)
                {
                    return false;
                }
            }

            private static TimeSpan Bounded(TimeSpan timeout) => timeout > TimeSpan.FromMilliseconds(int.MaxValue) ? TimeSpan.FromMilliseconds(int.MaxValue) : timeout;

            protected override void OnClose(TimeSpan timeout) => Stop();

            protected override void OnAbort() => Stop();

            /// <summary>Stops accepting and closes every connection the dispatcher has not taken, whether its preamble is read or not.</summary>
            private void Stop()
            {
                _closing.Cancel();
                _socket?.Stop();
                foreach (var channel in _opening.Keys)
                {
                    channel.Abort(); // its read fails at once
                }
                AbortUnclaimed();
            }

            private void AbortUnclaimed()
            {
                while (_opened.TryDequeue(out var channel))
                {
                    channel.Abort();
                }
            }

            protected override IAsyncResult OnBeginAcceptChannel(TimeSpan timeout, AsyncCallback callback, object state) =>
                Apm.Begin(() => OnAcceptChannel(timeout), callback, state);

            protected override IDuplexSessionChannel OnEndAcceptChannel(IAsyncResult result) => Apm.End<IDuplexSessionChannel>(result);

            protected override IAsyncResult OnBeginWaitForChannel(TimeSpan timeout, AsyncCallback callback, object state) =>
                Apm.Begin(() => OnWaitForChannel(timeout), callback, state);

            protected override bool OnEndWaitForChannel(IAsyncResult result) => Apm.End<bool>(result);

            protected override IAsyncResult OnBeginOpen(TimeSpan timeout, AsyncCallback callback, object state) =>
                Apm.Begin(() => { OnOpen(timeout); return true; }, callback, state);

            protected override void OnEndOpen(IAsyncResult result) => Apm.End<bool>(result);

            protected override IAsyncResult OnBeginClose(TimeSpan timeout, AsyncCallback callback, object state) =>
                Apm.Begin(() => { OnClose(timeout); return true; }, callback, state);

            protected override void OnEndClose(IAsyncResult result) => Apm.End<bool>(result);
        }
    }
}
