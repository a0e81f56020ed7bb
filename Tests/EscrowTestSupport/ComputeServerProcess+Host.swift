import EscrowHost

extension ComputeServerProcess {
    /// Makes development certificates, starts a compute server with them and runs `body`; the
    /// server is killed and the certificates removed afterwards, also when `body` throws.
    public static func with<T>(extraArguments: [String] = [],
                               _ body: (ComputeServerProcess, DevCertificates) async throws -> T) async throws -> T {
        let certificates = try await DevCertificates.make()
        defer { certificates.remove() }
        let server = try await start(certificates: certificates, extraArguments: extraArguments)
        defer { server.kill() }
        return try await body(server, certificates)
    }
}

extension EscrowHost {
    /// Registers `server` as the compute server `id`, trusting the certificates' CA and presenting
    /// their client pair (the server certificate names `compute-1`).
    public func register(_ server: ComputeServerProcess, _ certificates: DevCertificates, as id: String = "compute-1") throws {
        try servers.add(id: id, addresses: [server.address], caFile: certificates.path("ca.pem"), serverName: "compute-1",
                        clientCertificate: certificates.path("client.pem"), clientKey: certificates.path("client-key.pem"))
    }
}
