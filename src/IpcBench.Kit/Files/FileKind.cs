using System.Runtime.InteropServices;

namespace IpcBench.Kit.Files;

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
/// from a directory but not a socket from a regular file, nor whose a file is. Linux reads it with statx (one layout on
/// every architecture); Windows shows a Unix socket as a reparse point.
/// </summary>
public static unsafe partial class FileKinds
{
    private const int AtFdCwd = -100;
    private const int AtSymlinkNoFollow = 0x100;
    private const int AtEmptyPath = 0x1000;
    private const uint StatxType = 0x1, StatxMode = 0x2, StatxUid = 0x8, StatxIno = 0x100, StatxSize = 0x200;
    private const uint StatxAll = StatxType | StatxMode | StatxUid | StatxIno | StatxSize;
    // struct statx: stx_mask (u32), stx_blksize (u32), stx_attributes (u64), stx_nlink (u32), stx_uid (u32), stx_gid (u32),
    // stx_mode (u16), a spare u16, stx_ino (u64), stx_size (u64) ... stx_dev_major (u32) at 136, stx_dev_minor (u32) at 140
    private const int UidOffset = 20, ModeOffset = 28, InodeOffset = 32, SizeOffset = 40, DeviceMajorOffset = 136, DeviceMinorOffset = 140;
    private const int TypeMask = 0xF000; // S_IFMT
    private const int SocketType = 0xC000; // S_IFSOCK
    private const int RegularType = 0x8000; // S_IFREG
    private const int DirectoryType = 0x4000; // S_IFDIR
    private const int LinkType = 0xA000; // S_IFLNK
    private const int FifoType = 0x1000; // S_IFIFO
    private const int CharacterDeviceType = 0x2000; // S_IFCHR
    private const int BlockDeviceType = 0x6000; // S_IFBLK
    private const int PermissionMask = 0xFFF; // the permission bits with setuid, setgid and sticky
    private const int NoSuchFile = 2; // ENOENT

    public static FileKind Of(string path)
    {
        if (OperatingSystem.IsLinux())
        {
            return Status(path) is not { } status ? FileKind.Missing
                : (status.Mode & TypeMask) switch
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

    /// <summary>
    /// Whether <paramref name="path"/> is a directory as IpcBench makes its private ones: a directory itself (not a link to
    /// one), owned by this process's user, which no one else may enter (0700). Anything else is not proved to be ours.
    /// </summary>
    public static bool IsPrivateDirectoryOfMine(string path)
    {
        if (!OperatingSystem.IsLinux())
        {
            var info = new DirectoryInfo(path);
            return info.Exists && !info.Attributes.HasFlag(FileAttributes.ReparsePoint); // the temp directory is the user's own
        }
        return Status(path) is { } status && (status.Mode & TypeMask) == DirectoryType && status.Owner == EffectiveUserId()
            && (status.Mode & PermissionMask) == 0x1C0; // 0700
    }

    /// <summary>Whether <paramref name="path"/> is a Unix socket file owned by this process's user (a .NET pipe's, say).</summary>
    public static bool IsSocketOfMine(string path) => OperatingSystem.IsLinux()
        ? Status(path) is { } status && (status.Mode & TypeMask) == SocketType && status.Owner == EffectiveUserId()
        : Of(path) == FileKind.Socket;

    /// <summary>What statx says of a path (the link itself, not what it points to); null when nothing is there. Linux.</summary>
    public static FileStatus? Status(string path)
    {
        byte* statx = stackalloc byte[256];
        if (Statx(AtFdCwd, path, AtSymlinkNoFollow, StatxAll, statx) != 0)
        {
            int errno = Marshal.GetLastPInvokeError();
            return errno == NoSuchFile ? null : throw new IOException($"cannot tell what {path} is: {Marshal.GetPInvokeErrorMessage(errno)}");
        }
        return FileStatus.Read(statx);
    }

    /// <summary>What statx says of an open file. Linux.</summary>
    public static FileStatus Status(Microsoft.Win32.SafeHandles.SafeFileHandle file)
    {
        byte* statx = stackalloc byte[256];
        bool added = false;
        try
        {
            file.DangerousAddRef(ref added);
            if (Statx((int)file.DangerousGetHandle(), "", AtEmptyPath, StatxAll, statx) != 0)
            {
                throw new IOException($"cannot tell what an open file is: {Marshal.GetPInvokeErrorMessage(Marshal.GetLastPInvokeError())}");
            }
        }
        finally
        {
            if (added)
            {
                file.DangerousRelease();
            }
        }
        return FileStatus.Read(statx);
    }

    /// <summary>The fields of a struct statx that IpcBench reads.</summary>
    public readonly record struct FileStatus(int Mode, uint Owner, ulong Inode, ulong Size, uint DeviceMajor, uint DeviceMinor)
    {
        public bool IsRegular => (Mode & TypeMask) == RegularType;

        public static FileStatus Read(byte* statx) => new(*(ushort*)(statx + ModeOffset), *(uint*)(statx + UidOffset),
            *(ulong*)(statx + InodeOffset), *(ulong*)(statx + SizeOffset), *(uint*)(statx + DeviceMajorOffset), *(uint*)(statx + DeviceMinorOffset));

        public bool IsSameFile(FileStatus other) =>
            Inode == other.Inode && DeviceMajor == other.DeviceMajor && DeviceMinor == other.DeviceMinor;

        /// <summary>What kind of file it is, in words, for a refusal.</summary>
        public string Kind => (Mode & TypeMask) switch
        {
            RegularType => "a regular file",
            DirectoryType => "a directory",
            SocketType => "a socket",
            LinkType => "a symbolic link",
            FifoType => "a named pipe (FIFO)",
            CharacterDeviceType => "a character device",
            BlockDeviceType => "a block device",
            _ => "not a regular file",
        };
    }

    [LibraryImport("libc", EntryPoint = "statx", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    private static partial int Statx(int dirfd, string path, int flags, uint mask, byte* buffer);

    [LibraryImport("libc", EntryPoint = "geteuid")]
    private static partial uint EffectiveUserId();
}
