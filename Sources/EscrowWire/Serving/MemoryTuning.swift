import CMallocTuning

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// How a process that moves large frames sets up the C allocator.
///
/// A frame of pictures is tens of megabytes: the send buffer, the receive buffer and the
/// decoded cells. With glibc's defaults, a buffer over its mmap threshold gets fresh pages from
/// the kernel on every call and freed memory past 128 KB at the top of the heap is returned at
/// once, so every large call pays a page fault per 4 KB touched. On this project's 2-vCPU VMs that
/// cost more than copying the bytes: encoding 1000 pictures of 16 KB took 7–9 ms with the
/// defaults and 1.3–1.5 ms with the settings below (docs/PERFORMANCE.md, group `codec`).
///
/// `reuseFreedMemoryForLargeFrames()` raises the mmap threshold to 32 MiB (glibc's maximum) and
/// the trim threshold to 64 MiB: buffers up to 32 MiB come from the heap, and up to 64 MiB of freed
/// memory per malloc arena is kept for the next call instead of being returned. The price is a
/// resident size that stays near its high-water mark after large calls, up to that bound.
/// `escrow-compute` and `escrow serve` call it at startup; a library user decides for their own
/// process. An operator who set either threshold in `GLIBC_TUNABLES` keeps their setting.
public enum MemoryTuning {
    /// The mmap threshold set: allocations from this size on get their own mapping.
    public static let mmapThreshold = 32 << 20
    /// The trim threshold set: free memory at the top of a heap past this size is returned.
    public static let trimThreshold = 64 << 20

    /// Applies the settings above to this process, unless `GLIBC_TUNABLES` already sets either
    /// threshold.
    ///
    /// - Returns: whether they took effect (false when the environment sets them, or on a C
    ///   library other than glibc).
    ///
    /// Thread safety: call it at startup, before other threads allocate heavily; glibc applies it
    /// under its own lock.
    @discardableResult
    public static func reuseFreedMemoryForLargeFrames() -> Bool {
        guard !operatorChoseThresholds(getenv("GLIBC_TUNABLES").map { String(cString: $0) }) else { return false }
        return escrow_malloc_tune(Int32(mmapThreshold), Int32(trimThreshold)) == 1
    }

    /// Returns the allocator's free memory to the kernel: glibc's `malloc_trim(0)`, which walks
    /// every malloc arena and releases free pages anywhere in it, not only at its top.
    ///
    /// For after a burst that freed much memory at once (a flood of connections closing): what
    /// the thresholds above keep for the next large frame would otherwise stay resident.
    /// `ConnectionRegistry` calls it when most of the connections open at a peak have closed.
    ///
    /// - Returns: whether any memory was returned (false on a C library other than glibc).
    ///
    /// Thread safety: may be called from any thread; it takes each arena's lock in turn, so call
    /// it off the event loops (it may take milliseconds on a large heap).
    @discardableResult
    public static func returnFreedMemory() -> Bool {
        escrow_malloc_trim() == 1
    }

    /// Whether a `GLIBC_TUNABLES` value sets either threshold this type would set.
    static func operatorChoseThresholds(_ tunables: String?) -> Bool {
        guard let tunables else { return false }
        return tunables.split(separator: ":").contains { setting in
            let name = setting.prefix { $0 != "=" }
            return name == "glibc.malloc.mmap_threshold" || name == "glibc.malloc.trim_threshold"
        }
    }
}
