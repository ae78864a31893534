using IpcBench.Contract.Options;
using IpcBench.Reporting.Writers;

namespace IpcBench.Benchmarks;

/// <summary>
/// A suite case's payloads: the request's and the reply's. IPCBENCH_SIZES names one per entry, "1KB" for an echo of a
/// kilobyte or "16:64KB" for a 16 B request answered with 64 KB (<c>serve --reply-size</c>).
/// </summary>
public sealed record MessageSizes(int Request, int Reply)
{
    /// <summary>The reply's size when it is not the request's; null for an echo.</summary>
    public int? ReplySize => Reply == Request ? null : Reply;

    /// <summary>"1KB", or "16:64KB"; null when it is neither.</summary>
    public static MessageSizes? Parse(string text, int max)
    {
        string[] parts = text.Split(':', 2, StringSplitOptions.TrimEntries);
        if (Quantities.ParseSize(parts[0], max) is not int request)
        {
            return null;
        }
        if (parts.Length == 1)
        {
            return new(request, request);
        }
        return Quantities.ParseSize(parts[1], max) is int reply ? new(request, reply) : null;
    }

    /// <summary>The sizes of a benchmark case's Size parameter: a pair, or one size both ways.</summary>
    public static MessageSizes? Of(object? parameter) => parameter switch
    {
        MessageSizes sizes => sizes,
        int size => new(size, size),
        _ => null,
    };

    /// <summary>How the summary shows it: "1 KB", or "16 B:64 KB".</summary>
    public override string ToString() => ReplySize is null ? Units.Size(Request) : $"{Units.Size(Request)}:{Units.Size(Reply)}";
}
