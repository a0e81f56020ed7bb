import Foundation
import NIOSSL

/// The TLS files of one side of the connection, and the TLS 1.3 mutual-authentication
/// configurations built from them.
public struct TLSFiles: Sendable, Hashable {
    /// This side's certificate chain (PEM).
    public var certificate: String
    /// This side's private key (PEM).
    public var privateKey: String
    /// The escrow CA (PEM) the peer's certificate must chain to.
    public var certificateAuthority: String

    public init(certificate: String, privateKey: String, certificateAuthority: String) {
        self.certificate = certificate
        self.privateKey = privateKey
        self.certificateAuthority = certificateAuthority
    }

    /// Each file read and parsed on its own, so an error names the file and what is wrong with it.
    private func load() throws(RPCError) -> (chain: [NIOSSLCertificate], key: NIOSSLPrivateKey, ca: [NIOSSLCertificate]) {
        let chain = try Self.certificates(certificate, role: "the certificate")
        try Self.requireReadable(privateKey, role: "the private key")
        guard let key = try? NIOSSLPrivateKey(file: privateKey, format: .pem) else {
            throw RPCError.connectionFailed("\(privateKey) (the private key) is not an unencrypted PEM private key")
        }
        let ca = try Self.certificates(certificateAuthority, role: "the CA certificate")
        return (chain, key, ca)
    }

    private static func certificates(_ path: String, role: String) throws(RPCError) -> [NIOSSLCertificate] {
        try requireReadable(path, role: role)
        let certificates = try? NIOSSLCertificate.fromPEMFile(path)
        guard let certificates, !certificates.isEmpty else {
            throw RPCError.connectionFailed("\(path) (\(role)) holds no PEM certificate")
        }
        return certificates
    }

    private static func requireReadable(_ path: String, role: String) throws(RPCError) {
        let files = FileManager.default
        var isFolder: ObjCBool = false
        guard files.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw RPCError.connectionFailed("\(path) (\(role)) does not exist")
        }
        guard !isFolder.boolValue else { throw RPCError.connectionFailed("\(path) (\(role)) is a folder, not a PEM file") }
        guard files.isReadableFile(atPath: path) else {
            throw RPCError.connectionFailed("\(path) (\(role)) cannot be read by this user")
        }
    }

    /// Why a context could not be made from files that each loaded.
    private func setUpFailed(_ error: any Error) -> RPCError {
        // Each file parsed on its own in `load`; together, a key is refused when it is not the
        // certificate's.
        if case NIOSSLError.failedToLoadPrivateKey = error {
            return .connectionFailed("\(privateKey) (the private key) does not belong to \(certificate) (the certificate)")
        }
        return .connectionFailed("cannot set up TLS: \(error)")
    }

    /// The server side: TLS 1.3 only, a client certificate signed by the CA required.
    public func serverContext() throws(RPCError) -> NIOSSLContext {
        let files = try load()
        var configuration = TLSConfiguration.makeServerConfigurationWithMTLS(
            certificateChain: files.chain.map { .certificate($0) },
            privateKey: .privateKey(files.key),
            trustRoots: .certificates(files.ca)
        )
        configuration.minimumTLSVersion = .tlsv13
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch {
            throw setUpFailed(error)
        }
    }

    /// The client side: TLS 1.3 only, the server's chain and name verified against the CA.
    public func clientContext() throws(RPCError) -> NIOSSLContext {
        let files = try load()
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv13
        configuration.certificateVerification = .fullVerification
        configuration.trustRoots = .certificates(files.ca)
        configuration.certificateChain = files.chain.map { .certificate($0) }
        configuration.privateKey = .privateKey(files.key)
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch {
            throw setUpFailed(error)
        }
    }
}
