using System.Runtime.InteropServices;

namespace IpcBench.Kit.Files;

/// <summary>
/// A server process makes its files for its owner alone. IpcBench's own code makes each owner-only itself (a 0700
/// directory, a pipe with <c>PipeOptions.CurrentUserOnly</c>); a library's server that makes a socket file with the
/// process's defaults (Thrift's named-pipe server, at <c>$TMPDIR/CoreFxPipe_NAME</c>) would make it as the umask says,
/// 0755 under the usual 022 and open to every user under 000. A umask of 077 makes those the owner's only as well.
/// </summary>
public static partial class OwnerOnlyFiles
{
    /// <summary>Sets this process's umask to 077 (Unix; Windows has none, and its pipes carry their own security).</summary>
    public static void ForThisProcess()
    {
        if (!OperatingSystem.IsWindows())
        {
            _ = SetUmask(0b000_111_111);
        }
    }

    [LibraryImport("libc", EntryPoint = "umask")]
    private static partial uint SetUmask(uint mask);
}
