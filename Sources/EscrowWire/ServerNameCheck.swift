import NIOCore
import NIOSSL

/// The client's check that the server's certificate names the server it meant to reach.
///
/// NIOSSL's own hostname verification also accepts a certificate whose IP address SAN matches the
/// address dialled, whatever `serverHostname` says; a certificate for `compute-2` that lists the
/// same IP address as `compute-1` would pass for `compute-1`. The escrow promises that the
/// server's *name* is checked (`--server-name`), so this check runs after NIOSSL's (chain and
/// hostname) and requires a DNS subject alternative name equal to `serverName`, ignoring ASCII
/// case, or a wildcard `*.rest` whose `rest` equals everything after `serverName`'s first label.
///
/// Thread safety: stateless.
enum ServerNameCheck {
    /// Whether `certificate` names `serverName` in a DNS subject alternative name.
    static func matches(_ certificate: NIOSSLCertificate, serverName: String) -> Bool {
        var wanted = serverName.lowercased()
        if wanted.hasSuffix(".") { wanted.removeLast() }
        let parent = wanted.firstIndex(of: ".").map { String(wanted[$0...]) }
        for name in certificate._subjectAlternativeNames() where name.nameType == .dnsName {
            let dnsName = String(decoding: name.contents, as: UTF8.self).lowercased()
            if dnsName == wanted { return true }
            if dnsName.hasPrefix("*."), let parent, dnsName.dropFirst() == parent { return true }
        }
        return false
    }

    /// A NIOSSL additional verification callback failing the handshake with
    /// `RPCError.connectionFailed` when the certificate does not name `serverName`.
    static func callback(serverName: String) -> _NIOAdditionalPeerCertificateVerificationCallback {
        { certificate, channel in
            guard matches(certificate, serverName: serverName) else {
                return channel.eventLoop.makeFailedFuture(
                    RPCError.connectionFailed("the server's certificate does not name '\(serverName)'"))
            }
            return channel.eventLoop.makeSucceededVoidFuture()
        }
    }
}
