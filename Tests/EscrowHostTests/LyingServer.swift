import EscrowCore
import EscrowTestSupport
import EscrowWire
import NIOCore
import NIOPosix
import NIOSSL
import SwiftProtobuf

/// A TLS server speaking the compute protocol that answers every compute call one way (`Answer`),
/// as a real `escrow-compute` of this build never would: a module it did not run, a module it calls
/// invalid, requests out of the protocol's bounds.
final class LyingServer: Sendable {
    static let otherDigest = String(repeating: "0", count: 64)
    static let invalidModule = "the module is not valid WebAssembly: unexpected end of the section or function"

    /// How the server answers a compute call.
    enum Answer: Sendable {
        /// With an output and a module digest that is not the one asked for.
        case anotherModule
        /// With `Error{INVALID_MODULE}` (`LyingServer.invalidModule`).
        case invalidModule
        /// With an output, the digest of the module asked for, and these requests as the ones the
        /// function made.
        case egress([Escrow_V1_EgressRequest])
    }

    let port: Int
    private let channel: any Channel

    private init(port: Int, channel: any Channel) {
        self.port = port
        self.channel = channel
    }

    static func start(_ certificates: DevCertificates, answer: Answer) async throws -> LyingServer {
        let tls = try TLSFiles(certificate: certificates.path("server.pem"), privateKey: certificates.path("server-key.pem"),
                               certificateAuthority: certificates.path("ca.pem")).serverContext()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls))
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(EnvelopeDecoder()))
                    try channel.pipeline.syncOperations.addHandler(LyingHandler(answer: answer))
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
    let answer: LyingServer.Answer

    init(answer: LyingServer.Answer) {
        self.answer = answer
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let received = unwrapInboundIn(data)
        var reply = Escrow_V1_Envelope()
        reply.requestID = received.envelope.requestID
        do {
            switch received.envelope.body {
            case .hello:
                reply.catalog = .with { $0.serverID = "compute-1" }
                context.writeAndFlush(wrapOutboundOut(try reply.message()), promise: nil)
            case .computeRequest(let request):
                switch answer {
                case .invalidModule:
                    reply.error = .with {
                        $0.code = .invalidModule
                        $0.message = LyingServer.invalidModule
                    }
                    context.writeAndFlush(wrapOutboundOut(try reply.message()), promise: nil)
                    return
                case .anotherModule:
                    reply.computeResponse = .with { $0.moduleSha256 = LyingServer.otherDigest }
                case .egress(let requests):
                    reply.computeResponse = .with {
                        $0.moduleSha256 = request.moduleSha256
                        $0.egress = requests
                    }
                }
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
