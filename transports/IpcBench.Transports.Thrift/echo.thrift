// The service IpcBench's thrift transports call: one method, bytes in, bytes out.
// Generated/EchoService.cs is this file through the Thrift compiler (Debian's thrift-compiler 0.17.0):
//   thrift --gen netstd:net6,pascal,no_deepcopy,async_postfix -out Generated echo.thrift
// then moved up out of the namespace folders it makes. It is kept in the repository so that a build needs no compiler.
namespace netstd IpcBench.Transports.Thrift.Generated

service EchoService {
  binary Echo(1: binary payload)
}
