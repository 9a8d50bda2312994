#if canImport(Glibc)
    internal import StratusCMalloc
#endif

extension StratusServer {
    /// Keeps the large buffers of answers in the allocator's heap instead of fresh memory
    /// mappings: with glibc's defaults a 1 MB change answer is a new `mmap` each time, its
    /// pages faulted in one by one and unmapped when the answer is sent (in a profile of
    /// 2,000-record `records/changes` answers, page faults were 17 % of stratusd's CPU and
    /// the answers 35 % faster without them; Performance.md). Buffers up to 16 MiB come from
    /// the heap, and a heap keeps up to 16 MiB free at its top before returning it.
    ///
    /// Call it once, first thing in `main`. A no-op where the C library is not glibc.
    public static func keepAnswerBuffersInHeap() {
        #if canImport(Glibc)
            _ = mallopt(M_MMAP_THRESHOLD, 16 << 20)
            _ = mallopt(M_TRIM_THRESHOLD, 16 << 20)
        #endif
    }
}
