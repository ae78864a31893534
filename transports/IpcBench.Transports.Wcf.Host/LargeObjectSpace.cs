using System;
using System.Collections.Generic;

namespace IpcBench.Transports.Wcf.Host
{
    /// <summary>
    /// Keeps part of Mono's large-object space mapped, as .NET's GC keeps the memory it frees (and GCRetainVM keeps more).
    /// Mono's GC (sgen, Mono 6.8: mono/sgen/sgen-los.c) puts every array over 8,000 bytes in 1 MiB sections and, at each
    /// major collection, unmaps every section with nothing live in it; the next large arrays are made in memory mapped
    /// afresh, a page fault for every 4 KiB. A 100 KB call makes about ten such arrays (the frame, the encoder's growing
    /// buffers, the payload) and a major collection follows every few calls, so with Mono's own behaviour the host
    /// faults in most of what it allocates: about 600 faults and 4.3 ms of CPU a 100 KB call here, on a VM where a fault
    /// is dear, against 0.7 ms with sections kept; one bare <c>new byte[102400]</c> took 330 us against 11 us (docs/transports.md,
    /// "WCF on Linux").
    /// Mono has no setting for it, so each kept section gets an anchor: a filler array takes all of a fresh section but
    /// three chunks, the smallest large array takes those, and the fillers are collected. A section with a live object
    /// in it is never unmapped, and its free chunks are reused.
    /// </summary>
    internal static class LargeObjectSpace
    {
        private const int ChunkBytes = 4096; // LOS_CHUNK_SIZE; a section is 256 chunks, the first its header

        private const int FillerBytes = 252 * ChunkBytes - 64; // 252 chunks with the object's header

        private const int AnchorBytes = 8200; // over SGEN_MAX_SMALL_OBJ_SIZE (8000): three chunks

        private static readonly List<byte[]> Anchors = new List<byte[]>();

        /// <summary>Keeps <paramref name="mebibytes"/> sections mapped for the life of the process; 0 keeps none.</summary>
        public static void KeepMapped(int mebibytes)
        {
            var fillers = new List<byte[]>(mebibytes);
            for (int i = 0; i < mebibytes; i++)
            {
                fillers.Add(new byte[FillerBytes]);
                Anchors.Add(new byte[AnchorBytes]);
            }
            fillers.Clear();
            GC.Collect(); // frees the fillers now, not during the first measured calls
        }
    }
}
