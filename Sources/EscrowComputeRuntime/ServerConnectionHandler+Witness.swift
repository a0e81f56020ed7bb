import EscrowWire
import Crypto
import EscrowCore
import Logging
import NIOCore
import NIOSSL
import SwiftProtobuf

extension ServerConnectionHandler {
    /// Answers a `WitnessRequest` (countersign a head) or a `WitnessQuery` (the heads held) for
    /// the host this connection's TLS client certificate identifies. The store's work (a read,
    /// and for a request a signature and an fsynced write) runs off the event loop.
    func answerWitness(_ envelope: Escrow_V1_Envelope, context: ChannelHandlerContext) {
        let id = envelope.requestID
        guard let witness else {
            write(Self.error(id, .notAWitness, "this compute server is not a witness (it runs without --witness-store); choose another witness"),
                  context: context)
            return
        }
        let certificate: [UInt8]
        do {
            guard let peer = try context.pipeline.syncOperations.nioSSL_peerCertificate() else {
                write(Self.error(id, .badRequest, "no TLS client certificate: a witness identifies hosts by theirs"), context: context)
                return
            }
            certificate = try peer.toDERBytes()
        } catch {
            write(Self.error(id, .badRequest, "cannot read the TLS client certificate: \(error)"), context: context)
            return
        }
        let host = WitnessHex.encode(SHA256.hash(data: certificate))
        let channel = context.channel
        let logger = self.logger
        Self.launchWitness(envelope, host: host, store: witness, logger: logger, channel: channel)
    }

    /// Works out the reply in a task of its own (off the event loop) and writes it.
    private static func launchWitness(_ envelope: Escrow_V1_Envelope, host: String, store: AuditWitnessStore, logger: Logger,
                                      channel: any Channel) {
        Task {
            let reply = witnessReply(envelope, host: host, store: store, logger: logger)
            do {
                channel.writeAndFlush(try reply.message(), promise: nil)
            } catch {
                logger.error("cannot encode a witness reply", metadata: ["error": "\(error)"])
            }
        }
    }

    private static func witnessReply(_ envelope: Escrow_V1_Envelope, host: String, store: AuditWitnessStore,
                                     logger: Logger) -> Escrow_V1_Envelope {
        let id = envelope.requestID
        var reply = Escrow_V1_Envelope()
        reply.requestID = id
        do throws(WitnessError) {
            switch envelope.body {
            case .witnessRequest(let request):
                let witnessed = try store.witness(request, host: host)
                logger.info("countersigned an audit head", metadata: ["host": "\(host.prefix(16))", "seq": "\(witnessed.head.seq)"])
                reply.witnessReply = .with { $0.witnessed = witnessed.message }
            default:
                let heads = try store.heads(for: host)
                reply.witnessState = .with { $0.heads = heads.map(\.message) }
            }
            return reply
        } catch {
            switch error {
            case .refused(let reason):
                logger.info("refused an audit head", metadata: ["host": "\(host.prefix(16))", "reason": "\(reason)"])
                return Self.error(id, .witnessRefused, reason)
            case .malformed, .badSignature:
                return Self.error(id, .badRequest, "\(error)")
            case .storage(let reason):
                logger.error("witness store failed", metadata: ["error": "\(reason)"])
                return Self.error(id, .functionFailed, "the witness cannot store or read heads now: \(reason)")
            }
        }
    }
}
