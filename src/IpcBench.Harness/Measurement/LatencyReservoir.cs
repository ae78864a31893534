namespace IpcBench.Harness.Measurement;

/// <summary>
/// A uniform random sample of a stream of round trips, of a fixed size (reservoir sampling, Li's algorithm L): every
/// round trip seen has the same chance to be kept, however many there are. Once full it draws how many round trips
/// to skip before the next one it keeps, so a round trip it skips costs a comparison, not a random number: this runs
/// on the measured path. Seeded, so that the same stream gives the same sample. Until it is full it holds every round
/// trip, in order.
/// </summary>
internal sealed class LatencyReservoir(int size, int seed)
{
    private readonly long[] _kept = new long[size];
    private int _count;
    private Random _random = new(seed);
    private double _w; // algorithm L's running weight
    private long _nextKept; // the Seen at which the next round trip is kept

    /// <summary>How many round trips were offered: what the sample stands for.</summary>
    public long Seen { get; private set; }

    public ArraySegment<long> Kept => new(_kept, 0, _count);

    public void Offer(long ticks)
    {
        Seen++;
        if (_count < size)
        {
            _kept[_count++] = ticks;
            if (_count == size)
            {
                _w = Math.Exp(Math.Log(Uniform()) / size);
                ScheduleNext();
            }
        }
        else if (Seen == _nextKept)
        {
            _kept[_random.Next(size)] = ticks;
            _w *= Math.Exp(Math.Log(Uniform()) / size);
            ScheduleNext();
        }
    }

    /// <summary>Draws the gap to the next kept round trip: geometric, with the chance of keeping one still to come.</summary>
    private void ScheduleNext() => _nextKept = Seen + (long)Math.Min(Math.Floor(Math.Log(Uniform()) / Math.Log(1 - _w)), long.MaxValue / 2) + 1;

    /// <summary>A uniform draw from (0, 1): never 0, whose logarithm has no value.</summary>
    private double Uniform() => 1 - _random.NextDouble();

    public void Clear()
    {
        (_count, Seen, _random, _w, _nextKept) = (0, 0, new Random(seed), 0, 0);
    }

    /// <summary>This reservoir as another process left it, to be merged or read (algorithm L's skip state does not travel).</summary>
    public void Restore(long seen, long[] kept)
    {
        if (kept.Length > size || kept.Length > seen)
        {
            throw new ArgumentException($"a sample of {kept.Length} of {seen} round trips does not fit a reservoir of {size}");
        }
        Clear();
        kept.CopyTo(_kept, 0);
        (_count, Seen) = (kept.Length, seen);
    }

    /// <summary>
    /// This reservoir as one sample of the union of <paramref name="parts"/>' streams: each draw takes a part with the
    /// chance its not yet drawn round trips have among all (a multivariate hypergeometric draw), then one of that part's
    /// kept ones at random, so the result is as uniform over the union as the parts are over theirs.
    /// </summary>
    public void Merge(IReadOnlyList<LatencyReservoir> parts)
    {
        Clear();
        long total = parts.Sum(p => p.Seen);
        if (total <= size)
        {
            foreach (var part in parts)
            {
                part.Kept.CopyTo(_kept, _count);
                _count += part._count;
            }
            Seen = total;
            return;
        }
        var pools = parts.Select(p => p.Kept.ToArray()).ToArray();
        var left = parts.Select(p => p.Seen).ToArray();
        var pooled = pools.Select(p => p.Length).ToArray();
        long remaining = total;
        for (; _count < size; _count++)
        {
            long pick = _random.NextInt64(remaining);
            int part = 0;
            while (pick >= left[part])
            {
                pick -= left[part++];
            }
            int j = _random.Next(pooled[part]); // one of the part's kept round trips not yet drawn
            _kept[_count] = pools[part][j];
            pools[part][j] = pools[part][--pooled[part]];
            left[part]--;
            remaining--;
        }
        Seen = total;
    }
}
