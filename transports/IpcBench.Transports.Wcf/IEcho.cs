using System.ServiceModel;

namespace IpcBench.Transports.Wcf
{
    /// <summary>
    /// The WCF contract of IpcBench's echo service, compiled into both the .NET 10 client and the .NET
    /// Framework host (one source file), so the two agree on every name and namespace on the wire.
    /// </summary>
    [ServiceContract(Namespace = Contract.Namespace)]
    public interface IEcho
    {
        /// <summary>Returns the server's answer to <paramref name="payload"/>: the payload itself, or the stats reply.</summary>
        [OperationContract]
        byte[] Echo(byte[] payload);
    }

    public static class Contract
    {
        public const string Namespace = "urn:ipcbench";

        /// <summary>The service's path under the net.tcp base address: net.tcp://HOST:PORT/ipcbench/echo.</summary>
        public const string Path = "/ipcbench/echo";
    }
}
