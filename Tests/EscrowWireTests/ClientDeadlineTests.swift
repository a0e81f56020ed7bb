import EscrowCore
import EscrowTestSupport
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import Testing

@testable import EscrowWire

/// A TLS peer that completes the handshake and then reads and drops everything: a compute server
/// that hangs. Only the client's own timer can end a call to it.
private final class SilentPeer: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}
}

@Suite(.devCertificates)
struct ClientDeadlineTests {
    private let certificates: TestCertificates

    init() throws {
        certificates = try TestCertificates.forCurrentSuite()
    }

    @Test func aServerThatNeverAnswersFailsTheCallAtTheClientsDeadline() async throws {
        let serverTLS = try certificates.server.serverContext()
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: serverTLS))
                    try channel.pipeline.syncOperations.addHandler(SilentPeer())
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(listener.localAddress?.port)
        let connection = try await ComputeConnection.connect(host: "127.0.0.1", port: port, serverName: "localhost",
                                                             tls: certificates.client, group: MultiThreadedEventLoopGroup.singleton)
        let clock = ContinuousClock()
        for _ in 0..<2 {
            let started = clock.now
            let error = await #expect(throws: RPCError.self) { try await connection.ping(deadline: .milliseconds(300)) }
            let elapsed = clock.now - started
            guard case .deadlineExceeded = error else {
                Issue.record("expected the client's deadline, got \(String(describing: error))")
                break
            }
            #expect(elapsed >= .milliseconds(300))
            #expect(elapsed < .seconds(5))
        }
        // Calls that ran out of time leave the connection open.
        #expect(connection.isActive)
        await connection.close()
        try await listener.close()
    }
}
