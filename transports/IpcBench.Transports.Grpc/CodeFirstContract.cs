using System.Runtime.Serialization;
using System.ServiceModel;
using ProtoBuf.Grpc;

namespace IpcBench.Transports.Grpc;

/// <summary>
/// The Echo service as a WCF service moving to gRPC writes it: an interface with WCF's contract attributes and a data
/// contract, no .proto (protobuf-net.Grpc reads both). Its names and field number are echo.proto's, so on the wire it
/// is the same service: a client generated from echo.proto can call a grpc-codefirst server, and the other way round.
/// </summary>
[ServiceContract(Name = "ipcbench.Echo")]
public interface IEchoContract
{
    [OperationContract(Name = "Call")]
    ValueTask<EchoData> CallAsync(EchoData request, CallContext context = default);
}

/// <summary>echo.proto's EchoMessage as a data contract: the payload as the byte array such contracts carry.</summary>
[DataContract]
public sealed class EchoData
{
    [DataMember(Order = 1)]
    public byte[] Payload { get; set; } = [];
}
