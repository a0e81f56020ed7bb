#if canImport(Glibc)
import Glibc
#endif

/// A TCP socket on 127.0.0.1 that never answers: connections complete in the kernel's backlog
/// and then hear nothing, so a call to it stays in flight until its caller gives up.
///
/// Thread safety: an immutable value; `close()` once, when done.
public struct SilentListener: Sendable {
    public let port: Int
    private let descriptor: Int32

    /// Binds a free port and listens (backlog 16), never accepting.
    ///
    /// - Throws: `Failed` when the socket cannot be set up.
    public init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failed() }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && listen(descriptor, 16) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard listening else {
            Glibc.close(descriptor)
            throw Failed()
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// `http://127.0.0.1:PORT`.
    public var url: String { "http://127.0.0.1:\(port)" }

    public func close() {
        Glibc.close(descriptor)
    }

    public struct Failed: Error, CustomStringConvertible {
        public var description: String { "cannot listen on 127.0.0.1 for a silent service" }
    }
}
