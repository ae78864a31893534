using System.Runtime.InteropServices;

namespace IpcBench.Core.Kit.Files;

/// <summary>What a path names, the link itself rather than where a symbolic link points.</summary>
public enum FileKind
{
    Missing,
    Socket,
    Regular,
    Other,
}

/// <summary>
/// The kind of file at a path: what a server checks before it removes a file it did not make, since .NET tells a file
/// from a directory but not a socket from a regular file. Linux reads it with statx (one layout on every architecture);
/// Windows shows a Unix socket as a reparse point.
/// </summary>
public static unsafe partial class FileKinds
{
    private const int AtFdCwd = -100;
    private const int AtSymlinkNoFollow = 0x100;
    private const uint StatxType = 0x1;
    private const int ModeOffset = 28; // struct statx: stx_mask, stx_blksize, stx_attributes, stx_nlink, stx_uid, stx_gid, stx_mode
    private const int TypeMask = 0xF000; // S_IFMT
    private const int SocketType = 0xC000; // S_IFSOCK
    private const int RegularType = 0x8000; // S_IFREG
    private const int NoSuchFile = 2; // ENOENT

    public static FileKind Of(string path)
    {
        if (OperatingSystem.IsLinux())
        {
            byte* statx = stackalloc byte[256];
            if (Statx(AtFdCwd, path, AtSymlinkNoFollow, StatxType, statx) != 0)
            {
                int errno = Marshal.GetLastPInvokeError();
                return errno == NoSuchFile ? FileKind.Missing
                    : throw new IOException($"cannot tell what {path} is: {Marshal.GetPInvokeErrorMessage(errno)}");
            }
            return (*(ushort*)(statx + ModeOffset) & TypeMask) switch
            {
                SocketType => FileKind.Socket,
                RegularType => FileKind.Regular,
                _ => FileKind.Other,
            };
        }
        var info = new FileInfo(path);
        return !info.Exists && !Directory.Exists(path) ? FileKind.Missing
            : info.Attributes.HasFlag(FileAttributes.Directory) ? FileKind.Other
            : info.Attributes.HasFlag(FileAttributes.ReparsePoint) ? FileKind.Socket
            : FileKind.Regular;
    }

    [LibraryImport("libc", EntryPoint = "statx", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    private static partial int Statx(int dirfd, string path, int flags, uint mask, byte* buffer);
}
