import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An exclusive lock on the escrow home held by the running daemon (`flock` on
/// `<home>/daemon.lock`), so a second daemon on the same home is refused. The kernel releases it
/// when the process dies, so a crash never leaves a stale lock.
final class DaemonLock: Sendable {
    private let descriptor: Int32

    /// Takes the lock.
    ///
    /// - Throws: `DaemonError.alreadyRunning` naming the running daemon's pid when it is held.
    init(path: String) throws {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw DaemonError.cannotListen("cannot open \(path): \(String(cString: strerror(errno)))") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let holder = (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            close(fd)
            throw DaemonError.alreadyRunning(pid: holder)
        }
        ftruncate(fd, 0)
        let pid = "\(getpid())\n"
        _ = pid.withCString { write(fd, $0, strlen($0)) }
        descriptor = fd
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}

/// The daemon could not start.
public enum DaemonError: Error, Sendable, Equatable, CustomStringConvertible {
    case alreadyRunning(pid: String)
    case cannotListen(String)

    public var description: String {
        switch self {
        case .alreadyRunning(let pid):
            "another escrow daemon is already serving this escrow home\(pid.isEmpty ? "" : " (pid \(pid))"); stop it first"
        case .cannotListen(let reason):
            "the escrow daemon cannot listen: \(reason)"
        }
    }
}
