import EscrowCore
import EscrowHost
import EscrowModules
import EscrowTestSupport
import EscrowWire
import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import SwiftProtobuf
import Testing

/// A compute server that says it ran another module than the one approved: its output is
/// withheld, the attempt is audited, and the host goes on serving.
@Suite struct ModuleLyingServerTests {
    @Test func anOutputFromAServerThatRanAnotherModuleIsWithheldAndAudited() async throws {
        let certificates = try await DevCertificates.make()
        defer { certificates.remove() }
        let server = try await LyingServer.start(certificates)
        defer { server.stop() }
        let bytes = try ExampleModules.bytes("location-bounds")
        let module = try ComputeModule(bytes: bytes)
        try await TemporaryHome.with { temporary in
            try temporary.seed()
            let host = try EscrowHost(home: temporary.home, logger: Logger(label: "test"))
            try host.servers.add(id: "compute-1", addresses: ["127.0.0.1:\(server.port)"], caFile: certificates.path("ca.pem"),
                                 serverName: "compute-1", clientCertificate: certificates.path("client.pem"),
                                 clientKey: certificates.path("client-key.pem"))
            let request = DataflowRequest(app: "org.example.area", purpose: "The area you moved in",
                                          access: "SELECT latitude, longitude FROM Location", compute: "",
                                          destination: .server("compute-1"), parameters: ComputeParameters(["decimals": "2"]),
                                          module: .bytes(bytes))
            do {
                _ = try await host.runApproving(request)
                Issue.record("the output of a server that ran another module reached the app")
            } catch let error as RemoteComputeError {
                #expect(error == .moduleMismatch(server: "compute-1", module: "example.location-bounds", approved: module.sha256,
                                                 ran: LyingServer.otherDigest))
                #expect(error.description.contains("its output was withheld: the server is not running what you approved"))
                #expect(AppFailure(hostError: error).kind == .serverUnavailable)
            }
            let entry = try #require(try host.audit.entries().last)
            #expect(entry.facts.outcome == .failed)
            #expect(entry.facts.outputSHA256 == nil)
            #expect(entry.facts.moduleSHA256 == module.sha256)
            #expect(entry.facts.reason?.contains("as if it ran module 0000000000000000") == true, "\(entry.facts.reason ?? "")")
            #expect(try host.audit.verify() == .intact(entries: try host.audit.entries().count))
            // The host goes on serving: the same module on the device.
            var onDevice = request
            onDevice.destination = .device
            #expect(try await host.runApproving(onDevice).output.rowCount == 1)
        }
    }
}

/// A TLS server speaking the compute protocol that answers every compute call with an output and
/// a module digest that is not the one asked for.
private final class LyingServer: Sendable {
    static let otherDigest = String(repeating: "0", count: 64)
    let port: Int
    private let channel: any Channel

    private init(port: Int, channel: any Channel) {
        self.port = port
        self.channel = channel
    }

    static func start(_ certificates: DevCertificates) async throws -> LyingServer {
        let tls = try TLSFiles(certificate: certificates.path("server.pem"), privateKey: certificates.path("server-key.pem"),
                               certificateAuthority: certificates.path("ca.pem")).serverContext()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls))
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(EnvelopeDecoder()))
                    try channel.pipeline.syncOperations.addHandler(LyingHandler())
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return LyingServer(port: channel.localAddress?.port ?? 0, channel: channel)
    }

    func stop() { channel.close(promise: nil) }
}

private final class LyingHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = ReceivedEnvelope
    typealias OutboundOut = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let received = unwrapInboundIn(data)
        var reply = Escrow_V1_Envelope()
        reply.requestID = received.envelope.requestID
        do {
            switch received.envelope.body {
            case .hello:
                reply.catalog = .with { $0.serverID = "compute-1" }
                context.writeAndFlush(wrapOutboundOut(try reply.message()), promise: nil)
            case .computeRequest:
                reply.computeResponse = .with { $0.moduleSha256 = LyingServer.otherDigest }
                let output = try Frame(columns: [Column(name: "south", values: .double([1]))])
                context.writeAndFlush(wrapOutboundOut(try reply.message(carrying: output)), promise: nil)
            default:
                break
            }
        } catch {
            context.close(promise: nil)
        }
    }
}
