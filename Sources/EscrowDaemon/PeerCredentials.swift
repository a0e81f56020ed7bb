import NIOCore
#if canImport(Glibc)
import Glibc
#endif

/// The credentials of the process at the other end of a Unix socket (`SO_PEERCRED`), the mirror
/// of Linux's `struct ucred` (not visible to Swift without `_GNU_SOURCE`).
struct PeerCredentials: Sendable, Equatable, CustomStringConvertible {
    var pid: pid_t = 0
    var uid: uid_t = 0
    var gid: gid_t = 0

    /// Reads the peer's credentials (completes at once on the channel's event loop); nil when the
    /// channel does not offer socket options.
    static func read(_ channel: any Channel) -> EventLoopFuture<PeerCredentials>? {
        guard let provider = channel as? any SocketOptionProvider else { return nil }
        return provider.unsafeGetSocketOption(level: SocketOptionLevel(SOL_SOCKET), name: SO_PEERCRED)
    }

    var description: String { "uid \(uid) pid \(pid)" }
}
