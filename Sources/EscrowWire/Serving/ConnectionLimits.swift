#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// How many connections a server keeps open, and how long each may stay silent.
///
/// A stranger needs no certificate to open a TCP connection, so these limits are what keeps one
/// from stalling a server: a connection over `maximumConnections` is closed as soon as it is
/// accepted (those already open keep being served), a TLS handshake must finish within
/// `handshakeTimeout`, the first request must arrive within `firstRequestTimeout` after it, and a
/// connection that sends no request for `idleTimeout` while none of its calls runs is closed.
///
/// `escrow-compute` and the host daemon (`escrow serve`) take these from their flags.
///
/// Thread safety: a value type.
public struct ConnectionLimits: Sendable, Equatable {
    /// Connections open at once; one more is closed at once, without a word.
    public var maximumConnections: Int
    /// From accepting a connection to the end of its TLS handshake (unused without TLS).
    public var handshakeTimeout: Duration
    /// From the end of the handshake (or accepting, without TLS) to the first whole request.
    public var firstRequestTimeout: Duration
    /// How long a connection may go without a whole request while none of its calls runs.
    public var idleTimeout: Duration

    /// - Parameter maximumConnections: nil for `defaultMaximumConnections()`.
    public init(maximumConnections: Int? = nil, handshakeTimeout: Duration = .seconds(10),
                firstRequestTimeout: Duration = .seconds(10), idleTimeout: Duration = .seconds(300)) {
        self.maximumConnections = max(1, maximumConnections ?? Self.defaultMaximumConnections())
        self.handshakeTimeout = handshakeTimeout
        self.firstRequestTimeout = firstRequestTimeout
        self.idleTimeout = idleTimeout
    }

    /// The default maximum: half the process's file-descriptor limit (`RLIMIT_NOFILE`, soft),
    /// at most 4096 and at least 16.
    ///
    /// Half leaves descriptors for the accept-and-close of refused connections, the files the
    /// process opens and the event loops. 4096 bounds the memory a flood of half-open TLS
    /// connections can hold (docs/PERFORMANCE.md, "Connection floods"), and is far more hosts
    /// than one server serves.
    public static func defaultMaximumConnections() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        // RLIM_INFINITY is all ones: as large as any limit, it gives the cap.
        return Int(min(4096, max(16, UInt64(limit.rlim_cur) / 2)))
    }
}
