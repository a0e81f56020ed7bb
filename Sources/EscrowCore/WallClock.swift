#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The wall clock the escrow decides and records by: whether an approval `until` a time is still
/// in force, the time of a decision, of an audit entry, of a signed or countersigned audit head,
/// and when a server or a witness was added.
///
/// It is handed to what needs it (the host's `StateDatabase` carries one for the flows, the audit
/// log and the server registry; a witness store carries one for its countersignatures) instead of
/// being read from the system where the time is needed, so one clock answers "now" for a whole
/// host and tests can fix it or move it forward. Durations (time limits, latencies, deadlines)
/// are not read from it: they measure, they do not decide, and are measured with a monotonic
/// clock (`ContinuousClock`), which does not jump when the system's time is set.
///
/// The protocol and the system clock live in `EscrowCore` because the host and the compute
/// server both read it and Core already owns the escrow's `Timestamp`. Reading the system's
/// time is a call into the C library that touches no file, socket or shared state, so Core
/// keeps its rule of no I/O.
///
/// Thread safety: conforming types are `Sendable`; a clock may be read from any thread.
public protocol WallClock: Sendable {
    /// The time now, in seconds since 1970-01-01T00:00:00Z.
    var secondsSince1970: Double { get }
}

extension WallClock {
    /// The time now, read once, as seconds since 1970 and as the timestamp the escrow writes
    /// (`Timestamp.format`): both name the same instant.
    public func now() -> (seconds: Double, text: String) {
        let seconds = secondsSince1970
        return (seconds, Timestamp.format(secondsSince1970: seconds))
    }
}

extension WallClock where Self == SystemWallClock {
    /// The system's clock.
    public static var system: SystemWallClock { SystemWallClock() }
}

/// The system's real-time clock (`CLOCK_REALTIME`): the clock of the `escrow` CLI, the daemon
/// and `escrow-compute`.
///
/// Thread safety: a value without state; read from any thread.
public struct SystemWallClock: WallClock {
    public init() {}

    public var secondsSince1970: Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1_000_000_000
    }
}
