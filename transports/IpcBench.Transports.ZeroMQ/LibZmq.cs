using System.Reflection;
using System.Runtime.InteropServices;

namespace IpcBench.Transports.ZeroMQ;

/// <summary>
/// The few libzmq (4.x) calls <c>zmq-libzmq</c> needs, bound directly: the native engine that other
/// languages' ZeroMQ bindings wrap, measured beside NetMQ, the managed port.
/// </summary>
internal static unsafe partial class LibZmq
{
    private const string Library = "libzmq";

    public const int Req = 3, Rep = 4;
    public const int Linger = 17, MaxMsgSize = 22, RcvTimeo = 27, SndTimeo = 28, LastEndpoint = 32, ReqCorrelate = 52, ReqRelaxed = 53;
    public const int EIntr = 4, EAgain = 11;
    private const int HausNumero = 156384712;
    public const int ETerm = HausNumero + 53;

    /// <summary>zmq_msg_t: 64 opaque bytes.</summary>
    [StructLayout(LayoutKind.Sequential, Size = 64)]
    public struct Message
    {
        private readonly long _first;
    }

    private static readonly string[] Candidates = OperatingSystem.IsWindows()
        ? ["libzmq", "libzmq-mt-4_3_5", "libzmq-mt-4_3_4"]
        : OperatingSystem.IsMacOS() ? ["libzmq.5.dylib", "libzmq.dylib"] : ["libzmq.so.5", "libzmq.so"];

    private static readonly Lazy<string?> LoadError = new(() =>
    {
        NativeLibrary.SetDllImportResolver(typeof(LibZmq).Assembly, Resolve);
        try
        {
            Version(out int major, out int minor, out _);
            return major >= 4 ? null : $"libzmq {major}.{minor} is too old (4.x needed)";
        }
        catch (DllNotFoundException)
        {
            return "libzmq is not installed (Debian/Ubuntu: apt-get install libzmq5; macOS: brew install zeromq)";
        }
    });

    /// <summary>Null when libzmq loads here; otherwise why not.</summary>
    public static string? Unavailable => LoadError.Value;

    private static IntPtr Resolve(string name, Assembly assembly, DllImportSearchPath? path)
    {
        if (name != Library)
        {
            return IntPtr.Zero;
        }
        foreach (string candidate in Candidates)
        {
            if (NativeLibrary.TryLoad(candidate, assembly, path, out IntPtr handle))
            {
                return handle;
            }
        }
        return IntPtr.Zero;
    }

    /// <summary>
    /// Whether the last call failed because a signal interrupted its wait. libzmq's blocking calls wait in poll, which
    /// the kernel never restarts, so any signal the runtime handles (SIGCONT always, SIGCHLD once a process was
    /// started) ends them with EINTR, and libzmq passes that on: the caller resumes the call.
    /// </summary>
    public static bool Interrupted => Errno() == EIntr;

    /// <summary>The text of the last error on this thread, as libzmq words it.</summary>
    public static string LastError(out int errno)
    {
        errno = Errno();
        return Marshal.PtrToStringUTF8(StrError(errno)) ?? $"error {errno}";
    }

    public static void SetInt(ZmqSocketHandle socket, int option, int value) =>
        Check(SetSockOpt(socket, option, &value, sizeof(int)), "zmq_setsockopt");

    public static void SetLong(ZmqSocketHandle socket, int option, long value) =>
        Check(SetSockOpt(socket, option, &value, sizeof(long)), "zmq_setsockopt");

    public static string GetString(ZmqSocketHandle socket, int option)
    {
        byte* buffer = stackalloc byte[512];
        nuint length = 512;
        Check(GetSockOpt(socket, option, buffer, &length), "zmq_getsockopt");
        return Marshal.PtrToStringUTF8((IntPtr)buffer) ?? "";
    }

    public static void Check(int result, string call)
    {
        if (result < 0)
        {
            throw new Contract.TransportException($"{call} failed: {LastError(out _)}");
        }
    }

    [LibraryImport(Library, EntryPoint = "zmq_version")]
    private static partial void Version(out int major, out int minor, out int patch);

    [LibraryImport(Library, EntryPoint = "zmq_ctx_new")]
    public static partial ZmqContextHandle ContextNew();

    [LibraryImport(Library, EntryPoint = "zmq_ctx_shutdown")]
    public static partial int ContextShutdown(ZmqContextHandle context);

    [LibraryImport(Library, EntryPoint = "zmq_ctx_term")]
    public static partial int ContextTerm(IntPtr context); // for ZmqContextHandle only

    [LibraryImport(Library, EntryPoint = "zmq_socket")]
    public static partial ZmqSocketHandle Socket(ZmqContextHandle context, int type);

    [LibraryImport(Library, EntryPoint = "zmq_close")]
    public static partial int Close(IntPtr socket); // for ZmqSocketHandle only

    [LibraryImport(Library, EntryPoint = "zmq_setsockopt")]
    private static partial int SetSockOpt(ZmqSocketHandle socket, int option, void* value, nuint length);

    [LibraryImport(Library, EntryPoint = "zmq_getsockopt")]
    private static partial int GetSockOpt(ZmqSocketHandle socket, int option, void* value, nuint* length);

    [LibraryImport(Library, EntryPoint = "zmq_bind", StringMarshalling = StringMarshalling.Utf8)]
    public static partial int Bind(ZmqSocketHandle socket, string endpoint);

    [LibraryImport(Library, EntryPoint = "zmq_connect", StringMarshalling = StringMarshalling.Utf8)]
    public static partial int Connect(ZmqSocketHandle socket, string endpoint);

    [LibraryImport(Library, EntryPoint = "zmq_send")]
    public static partial int Send(ZmqSocketHandle socket, byte* buffer, nuint length, int flags);

    [LibraryImport(Library, EntryPoint = "zmq_msg_init")]
    public static partial int MessageInit(Message* message);

    [LibraryImport(Library, EntryPoint = "zmq_msg_recv")]
    public static partial int MessageReceive(Message* message, ZmqSocketHandle socket, int flags);

    [LibraryImport(Library, EntryPoint = "zmq_msg_data")]
    public static partial byte* MessageData(Message* message);

    /// <summary>1 when another frame of the same message follows the one received into <paramref name="message"/>.</summary>
    [LibraryImport(Library, EntryPoint = "zmq_msg_more")]
    public static partial int MessageMore(Message* message);

    [LibraryImport(Library, EntryPoint = "zmq_msg_close")]
    public static partial int MessageClose(Message* message);

    [LibraryImport(Library, EntryPoint = "zmq_errno")]
    private static partial int Errno();

    [LibraryImport(Library, EntryPoint = "zmq_strerror")]
    private static partial IntPtr StrError(int errno);
}
