import EscrowWire
import EscrowTestSupport
import Foundation
import NIOCore
import NIOPosix
import Testing

/// A connection that cannot be opened, or an address that cannot be listened on, says why in
/// words, naming the address.
@Suite(.devCertificates)
struct SocketFailureTests {
    private let certificates: TestCertificates

    init() throws {
        certificates = try TestCertificates.forCurrentSuite()
    }

    @Test func aPortNothingListensOnIsRefused() async throws {
        // A port that was just free: bound, then closed.
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(listener.localAddress?.port)
        try await listener.close()
        await #expect(throws: RPCError.connectionFailed("127.0.0.1:\(port): connection refused: nothing listens there")) {
            _ = try await ComputeConnection.connect(host: "127.0.0.1", port: port, serverName: "localhost",
                                                   tls: certificates.client, group: MultiThreadedEventLoopGroup.singleton)
        }
    }

    @Test func aMissingSocketIsNamed() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("no-daemon-\(UUID().uuidString).sock").path
        await #expect(throws: RPCError.connectionFailed("\(path): no such socket")) {
            _ = try await ComputeConnection.connect(unixSocket: path, group: MultiThreadedEventLoopGroup.singleton)
        }
    }

    @Test func aSecondServerOnTheSamePortSaysTheAddressIsInUse() async throws {
        let first = try await ComputeServerProcess.start(certificates: certificates)
        defer { first.kill() }
        let second = try ComputeServerProcess.refusedStart(arguments: [
            "--listen", first.address, "--cert", certificates.path("server.pem"),
            "--key", certificates.path("server-key.pem"), "--client-ca", certificates.path("ca.pem"),
        ])
        #expect(second.status == 1)
        #expect(second.standardError
            == "escrow-compute: cannot listen on \(first.address): the address is in use (another server listens there)\n")
    }
}
