import EscrowCore
import NIOCore
import NIOPosix

extension ClientBootstrap {
    /// Connects to `host`, skipping name resolution when it is an IP literal.
    ///
    /// NIO resolves every host name, literals included, with `getaddrinfo` on a Dispatch queue;
    /// when Dispatch's threads are all busy (a loaded machine, a process with many blocked
    /// threads) that hop alone has delayed connections by seconds. A literal needs no resolution.
    public func connect(hostOrLiteral host: String, port: Int) -> EventLoopFuture<any Channel> {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if HostAddress.isIPLiteral(bare), let address = try? SocketAddress(ipAddress: bare, port: port) {
            return connect(to: address)
        }
        return connect(host: host, port: port)
    }
}
