import EscrowWire
import NIOPosix

extension ServerRegistry {
    /// A new mutual-TLS connection to the registered server `id`, greeted (its addresses tried in
    /// order). The caller closes it.
    ///
    /// - Throws: `ServerError.unknownServer`, or the last address's `RPCError`.
    func connect(to id: String, timeout: Duration) async throws -> ComputeConnection {
        let server = try server(id)
        let tls = TLSFiles(certificate: clientCertificate, privateKey: clientKey, certificateAuthority: server.caFile)
        var lastError: any Error = ServerError.noAddress
        for address in server.addresses {
            do {
                let (host, port) = try Self.split(address)
                let connection = try await ComputeConnection.connect(host: host, port: port, serverName: server.serverName, tls: tls,
                                                                     group: MultiThreadedEventLoopGroup.singleton, connectTimeout: timeout)
                do {
                    _ = try await connection.hello(clientName: "escrow-host", deadline: timeout)
                } catch {
                    await connection.close()
                    throw error
                }
                return connection
            } catch {
                lastError = error
            }
        }
        throw lastError
    }
}
