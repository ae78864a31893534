using IpcBench.Contract;
using Tmds.DBus.Protocol;

namespace IpcBench.Transports.DBus;

/// <summary>
/// The server's D-Bus object: <c>/org/ipcbench/Echo</c>, interface <c>org.ipcbench.Echo</c>, one method <c>Call</c>
/// taking and returning a byte array (signature <c>ay</c>), owned on the bus as <c>org.ipcbench.Echo</c>. Each call's
/// payload goes through the server's request handler; a call it cannot take gets a D-Bus error, as any service answers.
/// </summary>
internal sealed class EchoObject(RequestHandler handler) : IPathMethodHandler
{
    public const string BusName = "org.ipcbench.Echo";
    public const string ObjectPath = "/org/ipcbench/Echo";
    public const string Interface = "org.ipcbench.Echo";
    public const string Method = "Call";
    public const string Signature = "ay";

    private byte[] _reply = new byte[1024]; // the library hands a connection's calls over one at a time

    public string Path => ObjectPath;

    public bool HandlesChildPaths => false;

    public ValueTask HandleMethodAsync(MethodContext context)
    {
        var request = context.Request;
        if (!request.Interface.SequenceEqual("org.ipcbench.Echo"u8) || !request.Member.SequenceEqual("Call"u8))
        {
            context.ReplyUnknownMethodError();
        }
        else if (!request.Signature.SequenceEqual("ay"u8))
        {
            context.ReplyError("org.freedesktop.DBus.Error.InvalidArgs", $"{Method} takes '{Signature}', not '{request.SignatureAsString}'");
        }
        else
        {
            Answer(context, request.GetBodyReader().ReadArrayOfByte());
        }
        return default;
    }

    private void Answer(MethodContext context, byte[] payload)
    {
        int length;
        try
        {
            int capacity = handler.ReplyCapacity(payload.Length);
            if (_reply.Length < capacity)
            {
                _reply = new byte[Math.Max(capacity, 2 * _reply.Length)];
            }
            length = handler.Handle(payload, _reply);
        }
        catch (TransportException e)
        {
            context.ReplyError(e is FrameTooLargeException ? "org.freedesktop.DBus.Error.LimitsExceeded" : "org.freedesktop.DBus.Error.InvalidArgs", e.Message);
            return;
        }
        var writer = context.CreateReplyWriter(Signature); // a mutable ref struct: not a (readonly) using variable
        try
        {
            writer.WriteArray(_reply.AsSpan(0, length));
            context.Reply(writer.CreateMessage());
        }
        finally
        {
            writer.Dispose();
        }
    }
}
