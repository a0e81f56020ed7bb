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

    private func load() throws(RPCError) -> (chain: [NIOSSLCertificate], key: NIOSSLPrivateKey, ca: [NIOSSLCertificate]) {
        do {
            let chain = try NIOSSLCertificate.fromPEMFile(certificate)
            let key = try NIOSSLPrivateKey(file: privateKey, format: .pem)
            let ca = try NIOSSLCertificate.fromPEMFile(certificateAuthority)
            guard !chain.isEmpty else { throw RPCError.connectionFailed("\(certificate) holds no certificate") }
            guard !ca.isEmpty else { throw RPCError.connectionFailed("\(certificateAuthority) holds no certificate") }
            return (chain, key, ca)
        } catch let error as RPCError {
            throw error
        } catch {
            throw RPCError.connectionFailed("cannot read the TLS files (\(certificate), \(privateKey), \(certificateAuthority)): \(error)")
        }
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
            throw RPCError.connectionFailed("cannot set up TLS: \(error)")
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
            throw RPCError.connectionFailed("cannot set up TLS: \(error)")
        }
    }
}
