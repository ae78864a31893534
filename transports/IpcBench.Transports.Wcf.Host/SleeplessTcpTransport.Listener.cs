using System;
using System.Net;
using System.Net.Sockets;
using System.Reflection;
using System.ServiceModel;
using System.ServiceModel.Channels;
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
        /// </summary>
        private sealed class Listener : ChannelListenerBase<IDuplexSessionChannel>
        {
            private const BindingFlags Private = BindingFlags.Instance | BindingFlags.NonPublic;
            private const string ServerChannel = "System.ServiceModel.Channels.NetTcp.TcpDuplexSessionChannel";

            private readonly IChannelListener<IDuplexSessionChannel> _mono;
            private readonly Func<TcpClient, IDuplexSessionChannel> _monoChannel;
            private readonly object _accepting = new object();
            private TcpListener _socket;
            private Task<TcpClient> _pending; // an accept begun and not handed out yet: it outlives an accept that timed out

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
            }

            /// <summary>
            /// The next connection that opens a NetTcp session, as Mono's channel wrapped and open; null once closing, or when
            /// none came within the timeout. A connection that sends no preamble within <see cref="PreambleTimeout"/> is
            /// closed and the next taken; one at a time, as Mono's dispatcher opened them.
            /// </summary>
            protected override IDuplexSessionChannel OnAcceptChannel(TimeSpan timeout)
            {
                for (var until = DateTime.UtcNow + Bounded(timeout); ;)
                {
                    var client = NextClient(until - DateTime.UtcNow);
                    if (client == null)
                    {
                        return null;
                    }
                    var channel = new Channel(_monoChannel(client));
                    if (channel.TryOpen(client, PreambleTimeout))
                    {
                        return channel;
                    }
                }
            }

            /// <summary>A client sends its preamble as it connects; this bounds one that does not (Mono's own read waits for ever).</summary>
            private static readonly TimeSpan PreambleTimeout = TimeSpan.FromSeconds(10);

            /// <summary>The next accepted connection; null once closing, or when none came within the timeout.</summary>
            private TcpClient NextClient(TimeSpan timeout)
            {
                var accept = Pending();
                try
                {
                    if (!accept.Wait(timeout > TimeSpan.Zero ? timeout : TimeSpan.Zero))
                    {
                        return null; // the dispatcher asks again, and finds this accept still under way
                    }
                }
                catch (AggregateException) when (State != CommunicationState.Opened)
                {
                    return null; // the socket was closed under it: as Mono's listener, no channel
                }
                finally
                {
                    Taken(accept);
                }
                return accept.Result;
            }

            protected override bool OnWaitForChannel(TimeSpan timeout)
            {
                try
                {
                    return Pending().Wait(Bounded(timeout));
                }
                catch (AggregateException) when (State != CommunicationState.Opened)
                {
                    return false;
                }
            }

            private Task<TcpClient> Pending()
            {
                lock (_accepting)
                {
                    return _pending ?? (_pending = _socket.AcceptTcpClientAsync());
                }
            }

            /// <summary>A finished accept is not handed out again (nor a failed one retried forever).</summary>
            private void Taken(Task<TcpClient> accept)
            {
                lock (_accepting)
                {
                    if (accept.IsCompleted && _pending == accept)
                    {
                        _pending = null;
                    }
                }
            }

            private static TimeSpan Bounded(TimeSpan timeout) => timeout > TimeSpan.FromMilliseconds(int.MaxValue) ? TimeSpan.FromMilliseconds(int.MaxValue) : timeout;

            protected override void OnClose(TimeSpan timeout) => _socket?.Stop();

            protected override void OnAbort() => _socket?.Stop();

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
