import EscrowRPC
import Foundation
import NIOCore
import NIOPosix
import Testing

/// A connection that cannot be opened says why in words, naming where it tried.
@Suite(.devCertificates)
struct ConnectFailureTests {
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
}
