#if canImport(Glibc)
import Glibc
#endif
import Testing

@testable import EscrowWire

@Suite("Allocator settings for large frames")
struct MemoryTuningTests {
    @Test("an operator's own thresholds in GLIBC_TUNABLES are kept", arguments: [
        (nil, false),
        ("", false),
        ("glibc.malloc.arena_max=2", false),
        ("glibc.malloc.trim_threshold=131072", true),
        ("glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=1048576", true),
        ("glibc.malloc.trim_threshold_extra=1", false),
    ] as [(String?, Bool)])
    func operatorChoice(tunables: String?, kept: Bool) {
        #expect(MemoryTuning.operatorChoseThresholds(tunables) == kept)
    }

    #if canImport(Glibc)
    @Test("the settings take effect on glibc unless the environment chose")
    func appliesOnGlibc() {
        let chosen = MemoryTuning.operatorChoseThresholds(getenv("GLIBC_TUNABLES").map { String(cString: $0) })
        #expect(MemoryTuning.reuseFreedMemoryForLargeFrames() == !chosen)
    }
    #endif
}
