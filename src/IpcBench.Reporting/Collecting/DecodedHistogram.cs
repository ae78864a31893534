using System.Buffers.Binary;
using System.IO.Compression;

namespace IpcBench.Reporting.Collecting;

/// <summary>
/// A case's <see cref="CaseResult.LatencyHistogram"/> read back: HdrHistogram's V2 compressed encoding (a DEFLATE'd header
/// and ZigZag LEB128 counts; what a line of latency.hlog holds), in nanoseconds. Decoded here rather than by
/// HdrHistogram.NET 2.5.0, whose own decoder fails on some histograms a run makes (HistogramLogTests). Read as data that
/// may be hostile: anything it does not expect is null, never an exception or an unbounded allocation.
/// </summary>
public sealed class DecodedHistogram
{
    private const int V2Cookie = 0x1c849303, V2CompressedCookie = 0x1c849304;
    private const int HeaderBytes = 40;
    private const int MaxDecodedBytes = 4 << 20;
    private const int MaxIndex = 1 << 20; // 3 significant digits over 1 ns to an hour need some 90,000

    private readonly (long Lowest, long Width, long Count)[] _buckets; // the non-empty ones, ascending

    private DecodedHistogram((long, long, long)[] buckets) => (_buckets, TotalCount) = (buckets, buckets.Sum(b => b.Item3)); // checked: a hostile count overflows here, in TryDecode

    public long TotalCount { get; }

    /// <summary>The histogram <paramref name="base64"/> encodes, or null when it is none HdrHistogram's V2 encoding would write.</summary>
    public static DecodedHistogram? TryDecode(string? base64)
    {
        try
        {
            return base64 is null ? null : Decode(Inflate(Convert.FromBase64String(base64)));
        }
        catch (Exception e) when (e is FormatException or InvalidDataException or ArgumentException or OverflowException)
        {
            return null;
        }
    }

    /// <summary>The nanoseconds at percentile <paramref name="p"/> (nearest rank), as the recorder reports it: the middle of the bucket that holds it.</summary>
    public long ValueAt(double p)
    {
        long rank = Math.Max(1, (long)(Math.Clamp(p, 0, 100) / 100 * TotalCount + 0.5)), seen = 0;
        foreach (var (lowest, width, count) in _buckets)
        {
            if ((seen += count) >= rank)
            {
                return lowest + width / 2;
            }
        }
        return _buckets.Length > 0 ? _buckets[^1].Lowest + _buckets[^1].Width / 2 : 0;
    }

    private static byte[]? Inflate(byte[] encoded)
    {
        if (encoded.Length < 8 || (BinaryPrimitives.ReadInt32BigEndian(encoded) & ~0xf0) != V2CompressedCookie)
        {
            return null;
        }
        int length = BinaryPrimitives.ReadInt32BigEndian(encoded.AsSpan(4));
        if (length <= 0 || length > encoded.Length - 8)
        {
            return null;
        }
        using var zlib = new ZLibStream(new MemoryStream(encoded, 8, length), CompressionMode.Decompress);
        var buffer = new byte[MaxDecodedBytes + 1];
        int read = 0, n;
        while (read < buffer.Length && (n = zlib.Read(buffer, read, buffer.Length - read)) > 0)
        {
            read += n;
        }
        return read <= MaxDecodedBytes ? buffer[..read] : null;
    }

    private static DecodedHistogram? Decode(byte[]? bytes)
    {
        if (bytes is null || bytes.Length < HeaderBytes || (BinaryPrimitives.ReadInt32BigEndian(bytes) & ~0xf0) != V2Cookie)
        {
            return null;
        }
        int payload = BinaryPrimitives.ReadInt32BigEndian(bytes.AsSpan(4)), offset = BinaryPrimitives.ReadInt32BigEndian(bytes.AsSpan(8));
        int digits = BinaryPrimitives.ReadInt32BigEndian(bytes.AsSpan(12));
        long lowest = BinaryPrimitives.ReadInt64BigEndian(bytes.AsSpan(16));
        if (payload < 0 || payload > bytes.Length - HeaderBytes || offset != 0 || digits is < 0 or > 5 || lowest < 1)
        {
            return null;
        }
        var layout = new Layout(digits, lowest);
        var buckets = new List<(long, long, long)>();
        var counts = bytes.AsSpan(HeaderBytes, payload);
        for (int at = 0, index = 0; at < counts.Length;)
        {
            long count = ZigZag(counts, ref at);
            if (count < 0)
            {
                index = (int)Math.Min(MaxIndex + 1L, index - count); // a run of empty buckets
            }
            else if (index++ < MaxIndex && layout.Bucket(index - 1) is { } bucket)
            {
                if (count > 0)
                {
                    buckets.Add((bucket.Lowest, bucket.Width, count));
                }
            }
            else
            {
                return null;
            }
        }
        return new DecodedHistogram([.. buckets]);
    }

    /// <summary>A ZigZag LEB128 number as HdrHistogram writes one: up to eight bytes of seven bits, a ninth of eight.</summary>
    private static long ZigZag(ReadOnlySpan<byte> bytes, ref int at)
    {
        ulong value = 0;
        for (int shift = 0; ; shift += 7)
        {
            if (at >= bytes.Length)
            {
                throw new InvalidDataException("a count runs past the histogram's end");
            }
            byte b = bytes[at++];
            if (shift == 56)
            {
                value |= (ulong)b << 56;
                break;
            }
            value |= (ulong)(b & 0x7f) << shift;
            if ((b & 0x80) == 0)
            {
                break;
            }
        }
        return (long)(value >> 1) ^ -(long)(value & 1);
    }

    /// <summary>HdrHistogram's bucket layout: which values an index of its counts stands for.</summary>
    private sealed class Layout(int digits, long lowest)
    {
        private readonly int _unitMagnitude = 63 - (int)long.LeadingZeroCount(lowest);
        private readonly int _halfCountMagnitude = Math.Max(0, (int)Math.Ceiling(Math.Log2(2 * Math.Pow(10, digits))) - 1);

        /// <summary>The lowest value index <paramref name="index"/> holds and the width of its bucket; null past what a long holds.</summary>
        public (long Lowest, long Width)? Bucket(int index)
        {
            int halfCount = 1 << _halfCountMagnitude;
            int bucket = (index >> _halfCountMagnitude) - 1, subBucket = (index & (halfCount - 1)) + halfCount;
            if (bucket < 0)
            {
                (bucket, subBucket) = (0, subBucket - halfCount);
            }
            int shift = bucket + _unitMagnitude;
            return shift + _halfCountMagnitude + 1 >= 63 ? null : ((long)subBucket << shift, 1L << shift);
        }
    }
}
