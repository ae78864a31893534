using System;
using System.IO;
using System.ServiceModel;
using System.ServiceModel.Channels;
using System.Threading.Tasks;

namespace IpcBench.Transports.Wcf.Host
{
    /// <summary>
    /// <c>IpcBench.WcfHost.exe HOST PORT [MONO_LOS_MIB]</c>: hosts <see cref="EchoService"/> at
    /// net.tcp://HOST:PORT/ipcbench/echo, prints one line, <c>READY net.tcp://...</c>, once it accepts, and
    /// stops when its standard input closes: the 'ipcbench serve' process that started it closes it to stop
    /// it, and so does the kernel when that process dies, so no host outlives its parent. Under Mono it first keeps
    /// MONO_LOS_MIB (default 32) of Mono's large-object space mapped (<see cref="LargeObjectSpace"/>).
    /// </summary>
    public static class Program
    {
        private static readonly TimeSpan CloseTimeout = TimeSpan.FromSeconds(2);

        private const int DefaultMonoLosMib = 32;

        /// <summary>Under Mono (Linux, macOS), not the .NET Framework.</summary>
        public static bool OnMono => Type.GetType("Mono.Runtime") != null;

        public static int Main(string[] args)
        {
            int monoLosMib = DefaultMonoLosMib;
            if (args.Length < 2 || args.Length > 3 || !int.TryParse(args[1], out int port)
                || (args.Length == 3 && (!int.TryParse(args[2], out monoLosMib) || monoLosMib < 0)))
            {
                Console.Error.WriteLine("usage: IpcBench.WcfHost HOST PORT [MONO_LOS_MIB]");
                return 2;
            }
            if (OnMono)
            {
                LargeObjectSpace.KeepMapped(monoLosMib);
            }
            var address = new Uri($"net.tcp://{args[0]}:{port}{Contract.Path}");
            var host = new ServiceHost(typeof(EchoService));
            try
            {
                host.AddServiceEndpoint(typeof(IEcho), Bindings.Server(), address);
                host.Open();
                Console.Out.WriteLine("READY " + address);
                Console.Out.Flush();
                Console.In.ReadToEnd(); // returns when stdin closes
                // Mono's Close can wait on a session still blocked in a read, and its Abort too (the dispatcher joins its
                // loop thread without a bound): neither may keep the host past its cue, which its starter waits 5 s for.
                var closing = Task.Run(() => host.Close(CloseTimeout));
                if (!closing.Wait(CloseTimeout + TimeSpan.FromSeconds(1)))
                {
                    Console.Error.WriteLine($"wcf host at {address}: did not close within {CloseTimeout.TotalSeconds:0} s; exiting");
                    Task.Run(() => host.Abort()).Wait(TimeSpan.FromSeconds(1));
                }
                Environment.Exit(0); // no thread of Mono's WCF keeps the process
                return 0;
            }
            catch (Exception e) when (e is CommunicationException || e is IOException || e is InvalidOperationException || e is TimeoutException
                || e is AggregateException || e is System.Net.Sockets.SocketException)
            {
                Console.Error.WriteLine($"wcf host at {address}: {e.Message}");
                host.Abort();
                return 1;
            }
        }
    }

    /// <summary>The server's binding: NetTcpBinding's, limits raised, its TCP transport receiving without Mono's sleep.</summary>
    internal static class Bindings
    {
        /// <summary>The largest payload, as the client's <c>WcfTransport</c> declares it.</summary>
        public const int MaxPayload = 16 * 1024 * 1024;

        public static Binding Server()
        {
            var netTcp = new NetTcpBinding(SecurityMode.None)
            {
                // Base64 in a binary XML message: the message is the payload plus a little.
                MaxReceivedMessageSize = 2L * MaxPayload,
                MaxBufferSize = 2 * MaxPayload,
            };
            var elements = netTcp.CreateBindingElements();
            for (int i = 0; i < elements.Count; i++)
            {
                switch (elements[i])
                {
                    case BinaryMessageEncodingBindingElement encoding:
                        // Set on the encoder itself: Mono's NetTcpBinding does not pass its ReaderQuotas on. At the
                        // default (16 KB) a larger array is refused by the reader and the call is not answered.
                        encoding.ReaderQuotas.MaxArrayLength = MaxPayload;
                        break;
                    case TcpTransportBindingElement tcp when SleeplessTcpTransport.IsNeeded:
                        elements[i] = new SleeplessTcpTransport(tcp);
                        break;
                }
            }
            return new CustomBinding(elements);
        }
    }
}
