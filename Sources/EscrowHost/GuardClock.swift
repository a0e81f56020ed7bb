#if canImport(Glibc)
import Glibc
#endif

/// Monotonic time for durations.
enum GuardClock {
    static func now() -> UInt64 { GuardState.now() }

    static func seconds(since start: UInt64) -> Double {
        Double(now() &- start) / 1_000_000_000
    }
}
