using System.Runtime.InteropServices;
using System.Text;
using IpcBench.Kit.Files;
using Microsoft.Win32.SafeHandles;

namespace IpcBench.Reporting.Collecting;

/// <summary>
/// Reading and writing files in folders that may come from elsewhere (a run folder someone sent, a results.json named
/// on the command line), where any name may be a link, a FIFO or a device: a read opens the file once, checks that
/// what it opened is a regular file of a bounded size and then reads at most that; a write makes a fresh file and
/// renames it into place, so that a link already at the name is replaced, never followed, and a reader never meets
/// half a file.
/// </summary>
public static partial class RegularFile
{
    /// <summary>The text of <paramref name="path"/>, a regular file (not a link) of at most <paramref name="maxBytes"/> bytes.</summary>
    /// <exception cref="IOException">Missing, unreadable, not a regular file, or larger: one line that says which.</exception>
    public static string ReadAllText(string path, int maxBytes)
    {
        using var file = OpenRegular(path, maxBytes);
        var bytes = new byte[Math.Min(RandomAccess.GetLength(file), maxBytes) + 1];
        int read = 0, n;
        while (read < bytes.Length && (n = RandomAccess.Read(file, bytes.AsSpan(read), read)) > 0)
        {
            read += n;
        }
        return read > maxBytes ? throw TooLarge(path, maxBytes) : new UTF8Encoding(false, throwOnInvalidBytes: false).GetString(bytes, 0, read);
    }

    /// <summary>
    /// <see cref="ReadAllText"/> for a file read as IpcBench's own (a results.json, a gate's verdicts): one that cannot be
    /// read is a <see cref="ResultsFormatException"/>, on one line that names the file.
    /// </summary>
    public static string ReadResultsText(string path, int maxBytes)
    {
        try
        {
            return ReadAllText(path, maxBytes);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            string why = e.Message.ReplaceLineEndings(" ");
            throw new ResultsFormatException(why.StartsWith(path, StringComparison.Ordinal) ? why : $"{path}: cannot read it: {why}", e);
        }
    }

    /// <summary>
    /// Writes <paramref name="text"/> to <paramref name="path"/>, replacing whatever is there (a link is replaced, not
    /// followed): into a file of a fresh name beside it first (created exclusively, so never through a link), then renamed.
    /// </summary>
    public static void Replace(string path, string text)
    {
        string full = Path.GetFullPath(path);
        string fresh = Path.Combine(Path.GetDirectoryName(full)!, $".{Path.GetFileName(full)}.{Guid.NewGuid():N}.partial");
        try
        {
            using (var stream = new FileStream(fresh, FileMode.CreateNew, FileAccess.Write, FileShare.None))
            {
                stream.Write(new UTF8Encoding(false).GetBytes(text));
            }
            File.Move(fresh, full, overwrite: true); // rename(2): atomic, and it replaces a link rather than writing through it
        }
        catch
        {
            File.Delete(fresh);
            throw;
        }
    }

    private static SafeFileHandle OpenRegular(string path, int maxBytes)
    {
        if (!OperatingSystem.IsLinux())
        {
            var info = new FileInfo(path);
            if (info.Exists && info.Attributes.HasFlag(FileAttributes.ReparsePoint))
            {
                throw NotRegular(path, "a link");
            }
            var handle = File.OpenHandle(path, FileMode.Open, FileAccess.Read, FileShare.Read);
            return RandomAccess.GetLength(handle) <= maxBytes ? handle : throw Disposed(handle, TooLarge(path, maxBytes));
        }
        // The name's own kind first (a link is refused here); then the file opened without waiting for a writer (a FIFO
        // swapped in meanwhile opens at once), and what was opened checked to be that same regular file.
        var named = FileKinds.Status(path) ?? throw new FileNotFoundException($"{path} does not exist");
        if (!named.IsRegular)
        {
            throw NotRegular(path, named.Kind);
        }
        int fd = Open(path, ReadOnly | NonBlocking | CloseOnExec);
        if (fd < 0)
        {
            throw new IOException($"{path}: cannot open it: {Marshal.GetPInvokeErrorMessage(Marshal.GetLastPInvokeError())}");
        }
        var opened = new SafeFileHandle(fd, ownsHandle: true);
        var status = FileKinds.Status(opened);
        return !status.IsRegular || !status.IsSameFile(named) ? throw Disposed(opened, new IOException($"{path} changed while it was opened: refused"))
            : status.Size > (ulong)maxBytes ? throw Disposed(opened, TooLarge(path, maxBytes))
            : opened;
    }

    private static IOException NotRegular(string path, string what) => new($"{path} is {what}, not a regular file: refused");

    private static IOException TooLarge(string path, int maxBytes) => new($"{path} is larger than {maxBytes / (1 << 20)} MiB: refused");

    private static Exception Disposed(IDisposable handle, Exception e)
    {
        handle.Dispose();
        return e;
    }

    // open(2) flags, the same on x86-64 and arm64: O_RDONLY, O_NONBLOCK (a FIFO opens without a writer), O_CLOEXEC.
    private const int ReadOnly = 0, NonBlocking = 0x800, CloseOnExec = 0x80000;

    [LibraryImport("libc", EntryPoint = "open", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    private static partial int Open(string path, int flags);
}
