import Logging
import NIOCore
import Synchronization

/// The open connections of a server, up to a maximum: a connection accepted while `maximum` are
/// open is refused (its caller closes it at once), the others are tracked until they close.
///
/// Refusals are counted and logged as one warning a minute at most (with how many were refused
/// since the last), each one at debug level: a flood of connections must not flood the log.
///
/// After a peak of at least `trimPeak` connections, each time three quarters of those open at
/// the last level have closed (4096, 1024, 256, … down to a few), the allocator's free memory is
/// returned to the kernel (`MemoryTuning.returnFreedMemory()`, off the event loop, a second
/// later: a closed connection's objects are freed only after its close callbacks): without it,
/// the memory of a flood's connections stays resident after the flood (docs/PERFORMANCE.md,
/// "Connection floods").
///
/// Thread safety: all methods may be called from any thread.
public final class ConnectionRegistry: Sendable {
    /// Connections open at once.
    public let maximum: Int
    private let logger: Logger
    private let state = Mutex(State())

    private struct State {
        var open: [ObjectIdentifier: any Channel] = [:]
        var refusedSinceWarning = 0
        var lastWarning: ContinuousClock.Instant?
        /// After a peak of at least `trimPeak`: the connections open when memory was last
        /// returned (or at the peak); nil when no flood is winding down.
        var trimLevel: Int?
    }

    /// The smallest peak after which closing connections returns memory: below it, what a
    /// connection costs is not worth a walk through the heap.
    static let trimPeak = 256
    /// How long after the connections closed their memory is returned.
    static let trimDelay = Duration.seconds(1)

    /// How often at most the "refusing connections" warning is logged.
    static let warningInterval = Duration.seconds(60)

    public init(maximum: Int, logger: Logger) {
        self.maximum = max(1, maximum)
        self.logger = logger
    }

    /// Records a newly accepted connection, unless `maximum` are open.
    ///
    /// - Returns: whether it was admitted; when not, the caller closes it.
    public func admit(_ channel: any Channel) -> Bool {
        let now = ContinuousClock.now
        let (admitted, warnAbout) = state.withLock { state -> (Bool, Int?) in
            guard state.open.count >= maximum else {
                state.open[ObjectIdentifier(channel)] = channel
                let count = state.open.count
                if let level = state.trimLevel {
                    state.trimLevel = max(level, count)
                } else if count >= Self.trimPeak {
                    state.trimLevel = count
                }
                return (true, nil)
            }
            state.refusedSinceWarning += 1
            if let last = state.lastWarning, now - last < Self.warningInterval { return (false, nil) }
            defer {
                state.lastWarning = now
                state.refusedSinceWarning = 0
            }
            return (false, state.refusedSinceWarning)
        }
        if !admitted {
            logger.debug("refusing a connection: the maximum is open", metadata: ["peer": "\(channel.remoteAddress.map { "\($0)" } ?? "?")"])
        }
        if let warnAbout {
            logger.warning("refusing connections: \(maximum) are open, the maximum; raise it with --max-connections if these are real clients",
                           metadata: ["refused": "\(warnAbout)"])
        }
        return admitted
    }

    /// Forgets a closed connection, and returns free memory when most of a peak's connections
    /// have closed.
    public func closed(_ channel: any Channel) {
        let trim = state.withLock { state -> Bool in
            state.open.removeValue(forKey: ObjectIdentifier(channel))
            let count = state.open.count
            guard let level = state.trimLevel, count <= level / 4 else { return false }
            state.trimLevel = count >= 4 ? count : nil
            return true
        }
        if trim {
            Task.detached(priority: .background) {
                do {
                    try await Task.sleep(for: Self.trimDelay)
                } catch {
                    return
                }
                MemoryTuning.returnFreedMemory()
            }
        }
    }

    /// The connections open now.
    public func all() -> [any Channel] {
        state.withLock { Array($0.open.values) }
    }

    /// How many connections are open now.
    public var count: Int { state.withLock { $0.open.count } }
}

/// Why a server closes a connection over its maximum as soon as it is accepted: the error its
/// child-channel initializer fails with. The peer only sees the connection close;
/// `ConnectionRegistry` logs the refusal.
public struct ConnectionRefused: Error, Sendable, CustomStringConvertible {
    public init() {}
    public var description: String { "refused: the maximum number of connections is open; try again later" }
}
