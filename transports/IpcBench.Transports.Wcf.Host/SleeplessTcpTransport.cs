using System;
using System.Net.Sockets;
using System.Reflection;
using System.ServiceModel;
using System.ServiceModel.Channels;
using System.Threading;
using System.Threading.Tasks;

namespace IpcBench.Transports.Wcf.Host
{
    /// <summary>
    /// NetTcpBinding's TCP transport, for Mono, minus one line: Mono's <c>TcpDuplexSessionChannel.TryReceive</c>
    /// (mcs/class/System.ServiceModel/System.ServiceModel.Channels.NetTcp, Mono 6.8) begins with an
    /// unconditional <c>Thread.Sleep (50)</c> ("FIXME: ... could be mostly workarounded by delaying input
    /// receiver"), and every way the service dispatcher receives (TryReceive, BeginTryReceive, Receive)
    /// goes through it, so each call would be answered 50 ms late. This element accepts connections itself
    /// (<see cref="Listener"/>: Mono's listener loses one now and then) and wraps Mono's own channel on each:
    /// receiving does what Mono's TryReceive does after the sleep (set the socket's receive timeout, then the
    /// channel's own frame reader, <c>ReadSizedMessage</c>, reached by reflection), and everything else is the
    /// channel's. The framing, the binary encoder and the dispatcher are Mono's: not a byte on the wire changes.
    /// The accepted socket also gets TCP_NODELAY, as the .NET Framework's own NetTcp sets it and Mono does not
    /// (timing only, not bytes).
    /// </summary>
    internal sealed partial class SleeplessTcpTransport : TcpTransportBindingElement
    {
        /// <summary>Only Mono needs it: the .NET Framework's NetTcp receives without sleeping.</summary>
        public static bool IsNeeded => Program.OnMono;

        public SleeplessTcpTransport(TcpTransportBindingElement settings)
            : base(settings)
        {
        }

        public override BindingElement Clone() => new SleeplessTcpTransport(this);

        public override IChannelListener<TChannel> BuildChannelListener<TChannel>(BindingContext context)
        {
            var listener = base.BuildChannelListener<TChannel>(context);
            return listener is IChannelListener<IDuplexSessionChannel> mono
                ? (IChannelListener<TChannel>)(object)new Listener(mono, context.Binding)
                : listener;
        }

        /// <summary>
        /// One accepted connection: Mono's channel, its preamble read before the dispatcher sees it
        /// (<see cref="TryOpen"/>), received from without the sleep.
        /// </summary>
        private sealed class Channel : IDuplexSessionChannel
        {
            private const BindingFlags Private = BindingFlags.Instance | BindingFlags.NonPublic;

            private readonly IDuplexSessionChannel _inner;
            private TcpClient _client;
            private Func<Message> _readSizedMessage;
            private EventHandler _opened;

            public Channel(IDuplexSessionChannel inner)
            {
                _inner = inner;
                // The frame reader and the socket are there once the channel is open (its preamble read); bind to them then.
                _inner.Opened += (sender, e) => Bind();
            }

            /// <summary>
            /// Opens Mono's channel, which reads the client's preamble, within <paramref name="timeout"/>; a connection that
            /// sends none, or something else, is closed and false. The dispatcher adds every channel it is given to its
            /// sessions before it opens it, and drops one only when it closes or faults after opening: a channel that failed
            /// to open held a session for good, and after twelve garbage connections, one after another, Mono's host
            /// accepted no client again. So only a channel whose preamble was read is handed to the dispatcher.
            /// </summary>
            public bool TryOpen(TcpClient client, TimeSpan timeout)
            {
                client.ReceiveTimeout = (int)Math.Max(1, Math.Min(timeout.TotalMilliseconds, int.MaxValue)); // Mono's Open reads without one
                try
                {
                    _inner.Open(timeout);
                    return true;
                }
                catch (Exception e) when (!(e is OutOfMemoryException))
                {
                    _inner.Abort(); // closes the connection: whatever it sent, it is not a NetTcp client
                    return false;
                }
            }

            private FieldInfo Field(string name) =>
                _inner.GetType().GetField(name, Private)
                ?? throw new MissingFieldException(_inner.GetType().FullName, name + " (this Mono's NetTcp channel is not the one SleeplessTcpTransport knows)");

            private void Bind()
            {
                object frame = Field("frame").GetValue(_inner);
                _readSizedMessage = (Func<Message>)Delegate.CreateDelegate(typeof(Func<Message>), frame, "ReadSizedMessage");
                _client = (TcpClient)Field("client").GetValue(_inner);
                _client.NoDelay = true;
                ProbeWhenIdle(_client.Client);
            }

            /// <summary>
            /// Keepalive probes after 30 s of silence, every 5 s (as IpcBench's own TCP servers, DeadPeerDetection): a client
            /// that vanished without a FIN would otherwise hold this one-client host until Mono's receive timeout.
            /// </summary>
            private static void ProbeWhenIdle(Socket socket)
            {
                const uint On = 1, IdleMs = 30000, IntervalMs = 5000;
                var values = new byte[12]; // struct tcp_keepalive: onoff, keepalivetime, keepaliveinterval
                BitConverter.GetBytes(On).CopyTo(values, 0);
                BitConverter.GetBytes(IdleMs).CopyTo(values, 4);
                BitConverter.GetBytes(IntervalMs).CopyTo(values, 8);
                socket.SetSocketOption(SocketOptionLevel.Socket, SocketOptionName.KeepAlive, true);
                socket.IOControl(IOControlCode.KeepAliveValues, values, null);
            }

            public bool TryReceive(TimeSpan timeout, out Message message)
            {
                if (_inner.State != CommunicationState.Opened)
                {
                    throw new CommunicationObjectFaultedException($"the channel is {_inner.State}, not open");
                }
                if (timeout <= TimeSpan.Zero)
                {
                    throw new ArgumentException($"Timeout value must be positive value. It was {timeout}");
                }
                _client.ReceiveTimeout = (int)Math.Max(1, Math.Min(Math.Ceiling(timeout.TotalMilliseconds), int.MaxValue)); // 0 would be no timeout
                message = _readSizedMessage();
                if (message == null)
                {
                    Field("session").SetValue(_inner, null); // as Mono's TryReceive does at the end of a session
                    return false;
                }
                return true;
            }

            public IAsyncResult BeginTryReceive(TimeSpan timeout, AsyncCallback callback, object state) =>
                Apm.Begin(() =>
                {
                    bool received = TryReceive(timeout, out var message);
                    return Tuple.Create(received, message);
                }, callback, state);

            public bool EndTryReceive(IAsyncResult result, out Message message)
            {
                var outcome = Apm.End<Tuple<bool, Message>>(result);
                message = outcome.Item2;
                return outcome.Item1;
            }

            public Message Receive() => Receive(_inner.GetProperty<IDefaultCommunicationTimeouts>()?.ReceiveTimeout ?? TimeSpan.FromMinutes(10));

            public Message Receive(TimeSpan timeout) =>
                TryReceive(timeout, out var message) ? message : throw new TimeoutException($"no message within {timeout}");

            public IAsyncResult BeginReceive(AsyncCallback callback, object state) => Apm.Begin(() => Receive(), callback, state);

            public IAsyncResult BeginReceive(TimeSpan timeout, AsyncCallback callback, object state) => Apm.Begin(() => Receive(timeout), callback, state);

            public Message EndReceive(IAsyncResult result) => Apm.End<Message>(result);

            // Everything else is Mono's channel's own (WaitForMessage polls with sleeps too, but the dispatcher does not call it).
            public bool WaitForMessage(TimeSpan timeout) => _inner.WaitForMessage(timeout);
            public IAsyncResult BeginWaitForMessage(TimeSpan timeout, AsyncCallback callback, object state) => _inner.BeginWaitForMessage(timeout, callback, state);
            public bool EndWaitForMessage(IAsyncResult result) => _inner.EndWaitForMessage(result);
            public EndpointAddress LocalAddress => _inner.LocalAddress;
            public EndpointAddress RemoteAddress => _inner.RemoteAddress;
            public Uri Via => _inner.Via;
            public IDuplexSession Session => _inner.Session;
            public CommunicationState State => _inner.State;
            public void Send(Message message) => _inner.Send(message);
            public void Send(Message message, TimeSpan timeout) => _inner.Send(message, timeout);
            public IAsyncResult BeginSend(Message message, AsyncCallback callback, object state) => _inner.BeginSend(message, callback, state);
            public IAsyncResult BeginSend(Message message, TimeSpan timeout, AsyncCallback callback, object state) => _inner.BeginSend(message, timeout, callback, state);
            public void EndSend(IAsyncResult result) => _inner.EndSend(result);
            public T GetProperty<T>() where T : class => _inner.GetProperty<T>();
            public void Abort() => _inner.Abort();
            public void Close() => _inner.Close();
            public void Close(TimeSpan timeout) => _inner.Close(timeout);
            public IAsyncResult BeginClose(AsyncCallback callback, object state) => _inner.BeginClose(callback, state);
            public IAsyncResult BeginClose(TimeSpan timeout, AsyncCallback callback, object state) => _inner.BeginClose(timeout, callback, state);
            public void EndClose(IAsyncResult result) => _inner.EndClose(result);

            // Opened by the listener already (TryOpen): the dispatcher's Open announces it, so that what it hangs on Opened runs.
            public void Open() => _opened?.Invoke(this, EventArgs.Empty);
            public void Open(TimeSpan timeout) => Open();
            public IAsyncResult BeginOpen(AsyncCallback callback, object state) => Apm.Begin(() => { Open(); return true; }, callback, state);
            public IAsyncResult BeginOpen(TimeSpan timeout, AsyncCallback callback, object state) => BeginOpen(callback, state);
            public void EndOpen(IAsyncResult result) => Apm.End<bool>(result);

            public event EventHandler Closed { add => _inner.Closed += value; remove => _inner.Closed -= value; }
            public event EventHandler Closing { add => _inner.Closing += value; remove => _inner.Closing -= value; }
            public event EventHandler Faulted { add => _inner.Faulted += value; remove => _inner.Faulted -= value; }
            public event EventHandler Opened { add => _opened += value; remove => _opened -= value; }
            public event EventHandler Opening { add => _inner.Opening += value; remove => _inner.Opening -= value; }
        }

        /// <summary>The asynchronous-programming-model pair over a task run on the thread pool, as Mono's channel does with a delegate.</summary>
        private static class Apm
        {
            public static IAsyncResult Begin<T>(Func<T> work, AsyncCallback callback, object state)
            {
                // The task is the IAsyncResult: its AsyncState is the caller's state.
                var task = Task.Factory.StartNew(_ => work(), state, CancellationToken.None, TaskCreationOptions.DenyChildAttach, TaskScheduler.Default);
                if (callback != null)
                {
                    task.ContinueWith(done => callback(done), TaskScheduler.Default);
                }
                return task;
            }

            public static T End<T>(IAsyncResult result) => ((Task<T>)result).GetAwaiter().GetResult();
        }
    }
}
