import NIOCore

/// When a connection must be closed for saying nothing: the state machine behind
/// `ConnectionDeadlineHandler`, without a channel or a clock of its own.
///
/// A connection goes through three phases: the TLS handshake (skipped without TLS), waiting for
/// its first request, then open. In each, `check(at:)` says whether the connection has overrun
/// its phase's time, or when to check again. An open connection is idle while none of its calls
/// runs and no request arrives; a call in flight keeps it open however long it takes.
///
/// Thread safety: a value type; its owner confines it to one event loop.
struct ConnectionDeadlines {
    /// Why a connection is closed.
    enum Overrun: Equatable, CustomStringConvertible {
        case handshake(TimeAmount)
        case firstRequest(TimeAmount)
        case idle(TimeAmount)

        var description: String {
            switch self {
            case .handshake(let limit): "the TLS handshake did not finish within \(Self.words(limit))"
            case .firstRequest(let limit): "no request within \(Self.words(limit)) of connecting"
            case .idle(let limit): "idle for \(Self.words(limit))"
            }
        }

        private static func words(_ amount: TimeAmount) -> String {
            amount.nanoseconds % 1_000_000_000 == 0 ? "\(amount.nanoseconds / 1_000_000_000) s" : "\(amount.nanoseconds / 1_000_000) ms"
        }
    }

    /// What to do after a check.
    enum Verdict: Equatable {
        case checkAgain(at: NIODeadline)
        case close(Overrun)
    }

    private enum Phase {
        case handshake(since: NIODeadline)
        case awaitingFirstRequest(since: NIODeadline)
        case open
    }

    private let handshakeTimeout: TimeAmount
    private let firstRequestTimeout: TimeAmount
    private let idleTimeout: TimeAmount
    private var phase: Phase
    /// When the last request arrived or the last call finished.
    private var lastActivity: NIODeadline
    /// Calls of this connection that have started and not finished.
    private(set) var callsInFlight = 0

    /// A connection accepted at `now`; `handshake` says whether a TLS handshake comes first.
    init(limits: ConnectionLimits, handshake: Bool, now: NIODeadline) {
        handshakeTimeout = TimeAmount(limits.handshakeTimeout)
        firstRequestTimeout = TimeAmount(limits.firstRequestTimeout)
        idleTimeout = TimeAmount(limits.idleTimeout)
        phase = handshake ? .handshake(since: now) : .awaitingFirstRequest(since: now)
        lastActivity = now
    }

    /// The TLS handshake finished at `now`.
    mutating func handshakeCompleted(at now: NIODeadline) {
        guard case .handshake = phase else { return }
        phase = .awaitingFirstRequest(since: now)
    }

    /// A whole request arrived at `now`.
    ///
    /// - Returns: whether it was the first (the deadline to check changed).
    @discardableResult
    mutating func requestReceived(at now: NIODeadline) -> Bool {
        lastActivity = now
        if case .open = phase { return false }
        phase = .open
        return true
    }

    mutating func callStarted() { callsInFlight += 1 }

    /// A call finished (its answer written) at `now`.
    mutating func callFinished(at now: NIODeadline) {
        callsInFlight = max(0, callsInFlight - 1)
        lastActivity = now
    }

    /// Whether the connection overran its phase's time at `now`, or when to check next.
    func check(at now: NIODeadline) -> Verdict {
        switch phase {
        case .handshake(let since):
            since + handshakeTimeout <= now ? .close(.handshake(handshakeTimeout)) : .checkAgain(at: since + handshakeTimeout)
        case .awaitingFirstRequest(let since):
            since + firstRequestTimeout <= now ? .close(.firstRequest(firstRequestTimeout)) : .checkAgain(at: since + firstRequestTimeout)
        case .open where callsInFlight > 0:
            .checkAgain(at: now + idleTimeout)
        case .open:
            lastActivity + idleTimeout <= now ? .close(.idle(idleTimeout)) : .checkAgain(at: lastActivity + idleTimeout)
        }
    }
}
