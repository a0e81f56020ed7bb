#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import NIOCore
import NIOPosix

/// Why a connection could not be opened or an address not listened on, in words: NIO's errors
/// describe a refused connection as "connection reset (error set): Connection refused) (errno: 111)".
package enum SocketFailure {
    package static func reason(_ error: any Error) -> String {
        switch error {
        case let error as IOError:
            return reason(errno: error.errnoCode)
        case let error as NIOConnectionError:
            if let dns = error.dnsAError ?? error.dnsAAAAError { return "cannot resolve \(error.host) (\(dns))" }
            // Each address the name resolved to was tried; the first failure stands for them.
            guard let first = error.connectionErrors.first else { return "no address to connect to" }
            guard error.connectionErrors.count > 1, let ip = first.target.ipAddress else { return reason(first.error) }
            return "\(ip): \(reason(first.error))"
        case ChannelError.connectTimeout(let timeout):
            return "no answer within \(Double(timeout.nanoseconds) / 1e9) s (a firewall dropping packets, or the host is down)"
        default:
            return "\(error)"
        }
    }

    package static func reason(errno code: Int32) -> String {
        switch code {
        case ECONNREFUSED: "connection refused: nothing listens there"
        case ENOENT: "no such socket"
        case EADDRINUSE: "the address is in use (another server listens there)"
        case EADDRNOTAVAIL: "the address is not one of this machine's"
        case EACCES: "permission denied (ports below 1024 need privileges)"
        case EHOSTUNREACH, ENETUNREACH: "unreachable from this machine"
        default: String(cString: strerror(code))
        }
    }
}
