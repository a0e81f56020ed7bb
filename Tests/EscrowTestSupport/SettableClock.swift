import EscrowCore
import Synchronization

/// A wall clock that stands still until a test sets it or moves it forward: approvals expire,
/// and audit entries and countersignatures carry their times, when the test says so, without
/// sleeping.
///
/// Thread safety: may be read and changed from any thread (a lock).
public final class SettableClock: WallClock {
    private let seconds: Mutex<Double>

    /// A clock standing at `secondsSince1970`.
    public init(secondsSince1970: Double) {
        seconds = Mutex(secondsSince1970)
    }

    /// A clock standing at `timestamp` (ISO 8601, as `Timestamp.parse` reads it).
    public convenience init(at timestamp: String) throws {
        guard let seconds = Timestamp.parse(timestamp) else { throw InvalidTimestamp(text: timestamp) }
        self.init(secondsSince1970: seconds)
    }

    public var secondsSince1970: Double { seconds.withLock { $0 } }

    /// The time now, as the escrow writes it (`Timestamp.format`).
    public var timestamp: String { now().text }

    /// Moves the clock forward (or back, for a negative duration).
    public func advance(by duration: Duration) {
        let (whole, fraction) = duration.components
        seconds.withLock { $0 += Double(whole) + Double(fraction) / 1e18 }
    }

    /// Sets the clock to `secondsSince1970`.
    public func set(to secondsSince1970: Double) {
        seconds.withLock { $0 = secondsSince1970 }
    }

    /// A text given as a clock's time that is not an ISO 8601 date-time.
    public struct InvalidTimestamp: Error, CustomStringConvertible {
        public let text: String
        public var description: String { "'\(text)' is not an ISO 8601 date-time; write it as 2026-11-23T19:00:00Z" }
    }
}
