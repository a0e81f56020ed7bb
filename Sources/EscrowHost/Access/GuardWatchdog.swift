import CSQLite
import Dispatch
import Synchronization

/// Interrupts the guarded connection's running query at its deadline, wherever the query's time
/// goes.
///
/// The progress handler runs between SQLite instructions, so it never sees time spent inside one
/// function call (a wide `printf` field, `replace` over a large string): five rows that each cost
/// seconds in one call run many times past the deadline before the handler runs again. The
/// watchdog calls `sqlite3_interrupt` at the deadline instead, which stops the query at its next
/// instruction boundary.
///
/// One dispatch timer per connection, on a queue all watchdogs share: no thread is created per
/// query. Arming a query only records its deadline under the lock; the timer is rescheduled only
/// when it would fire after that deadline (the first query, or one with a shorter limit). A timer
/// that fires before the armed deadline (set for an earlier query) reschedules itself for it.
/// `sqlite3_interrupt` is called only under the lock, only while a query is armed and past its
/// deadline, and never after `close()`: an interruption cannot reach the next query on the
/// connection, nor a closed connection.
///
/// Thread safety: `arm`, `disarm`, `hasFired` and `close` are called by the connection's one user
/// at a time; the timer fires on the shared queue.
final class GuardWatchdog {
    private let core: Core
    private static let queue = DispatchQueue(label: "escrow.access-watchdog")

    /// A watchdog for the connection `handle`, which must stay open until `close()`.
    init(connection handle: OpaquePointer) {
        core = Core(connection: handle, timer: DispatchSource.makeTimerSource(queue: Self.queue))
    }

    deinit {
        close()
    }

    /// Interrupts the connection's query `seconds` from now, unless `disarm()` comes first.
    func arm(seconds: Double) {
        core.arm(deadline: DispatchTime.now() + seconds)
    }

    /// Stops watching the query: from now on the watchdog interrupts nothing until armed again.
    /// Call it before the statement is reset.
    func disarm() {
        core.disarm()
    }

    /// Whether the watchdog interrupted the query since it was last armed.
    var hasFired: Bool {
        core.hasFired
    }

    /// Stops the timer for good; call it before the connection closes.
    func close() {
        core.close()
    }

    /// What the timer's handler shares with the connection's user, behind one lock.
    private final class Core: Sendable {
        private struct State {
            /// The connection; nil once closed.
            var connection: Interruptible?
            /// The timer; nil once closed (it holds the handler, which holds this core).
            var timer: (any DispatchSourceTimer)?
            /// When the timer is set to fire; nil when it is not.
            var scheduled: DispatchTime?
            var armed = false
            var deadline = DispatchTime.distantFuture
            var fired = false
        }

        private let state: Mutex<State>

        init(connection: OpaquePointer, timer: sending any DispatchSourceTimer) {
            state = Mutex(State(connection: Interruptible(handle: connection), timer: timer))
            state.withLock { state in
                state.timer?.setEventHandler { [self] in fire() }
                state.timer?.resume()
            }
        }

        func arm(deadline: DispatchTime) {
            state.withLock { state in
                state.armed = true
                state.deadline = deadline
                state.fired = false
                if let scheduled = state.scheduled, scheduled <= deadline { return }
                Self.schedule(&state, at: deadline)
            }
        }

        func disarm() {
            state.withLock { $0.armed = false }
        }

        var hasFired: Bool {
            state.withLock { $0.fired }
        }

        func close() {
            state.withLock { state in
                state.armed = false
                state.connection = nil
                state.timer?.cancel()
                state.timer = nil
            }
        }

        /// The timer's handler: interrupts an armed query past its deadline, or sets the timer
        /// again for an armed query whose deadline is still ahead.
        private func fire() {
            state.withLock { state in
                state.scheduled = nil
                guard state.armed, let connection = state.connection else { return }
                guard DispatchTime.now() >= state.deadline else {
                    Self.schedule(&state, at: state.deadline)
                    return
                }
                sqlite3_interrupt(connection.handle)
                state.fired = true
            }
        }

        private static func schedule(_ state: inout State, at deadline: DispatchTime) {
            guard let timer = state.timer else { return }
            timer.schedule(deadline: deadline, leeway: .milliseconds(5))
            state.scheduled = deadline
        }
    }

    /// A connection handle that crosses to the timer's queue for one call only:
    /// `sqlite3_interrupt`, which SQLite documents as safe from any thread while the connection
    /// is open (the lock and `close()` see to that).
    private struct Interruptible: @unchecked Sendable {
        let handle: OpaquePointer
    }
}
